#!/usr/bin/env bash
# Session 30 call 3: the first part of the peers' site (session 29's s29w1) to /tmp/stash for call 4.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s29w1/* /tmp/stash/ && ls -la /tmp/stash
