#!/usr/bin/env bash
# Session 32 call 6a: the committed build (`fin3` = d04aad1's device code, SASS md5 c65e7bcc, recompressed),
# seed 001's example and the peers' site's third part to /tmp/stash, for call 6c on the same machine.
set -uo pipefail
mkdir -p /tmp/stash; cp .exp/s32fin.tar.xz .exp/s29w3/* .exp/cute/flash_attention_v2.py /tmp/stash/; ls -la /tmp/stash
