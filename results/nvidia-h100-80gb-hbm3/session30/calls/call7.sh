#!/usr/bin/env bash
# Session 30 calls 7 and 8: the first two parts of the peers' site (session 29's s29w1, then s29w2: one per call) to /tmp/stash for call 9.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s29w[12]/* /tmp/stash/ && ls -la /tmp/stash
