#!/usr/bin/env bash
# Session 33 call 4b (right after 4a, same machine): the peers' site's first part to /tmp/stash.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s29w1/* /tmp/stash/ && ls -la /tmp/stash
