#!/usr/bin/env bash
# Session 32 call 6b (right after 6a, same machine): the peers' site's first part to /tmp/stash.
set -uo pipefail
mkdir -p /tmp/stash; cp .exp/s29w1/* /tmp/stash/; ls -la /tmp/stash
