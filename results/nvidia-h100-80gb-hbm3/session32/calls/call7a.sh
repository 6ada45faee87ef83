#!/usr/bin/env bash
# Session 32 call 7a: the committed build, seed 001's example and the peers' site's third part to
# /tmp/stash, for call 7c on the same machine.
set -uo pipefail
mkdir -p /tmp/stash; cp .exp/s32fin.tar.xz .exp/s29w3/* .exp/cute/flash_attention_v2.py /tmp/stash/; ls -la /tmp/stash
