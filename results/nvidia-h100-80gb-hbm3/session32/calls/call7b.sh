#!/usr/bin/env bash
# Session 32 call 7b (right after 7a, same machine): the peers' site's first part to /tmp/stash.
set -uo pipefail
mkdir -p /tmp/stash; cp .exp/s29w1/* /tmp/stash/; ls -la /tmp/stash
