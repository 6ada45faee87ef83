#!/usr/bin/env bash
# Session 31 call 4: the peers' site's first part (session 29's s29w1) to /tmp/stash for call 5.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s29w1/* /tmp/stash/ && ls -la /tmp/stash
