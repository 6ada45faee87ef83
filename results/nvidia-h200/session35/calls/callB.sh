#!/usr/bin/env bash
# Session 35 calls B and C (right after A, same machine): the peers' site's first and third parts
# (session 29's, `.exp/s29w1`, `.exp/s29w3`: FA4 4.0.0b36, CuTe DSL 4.8.1) to /tmp/stash.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s29w1/* .exp/s29w3/* /tmp/stash/ 2>/dev/null; ls -la /tmp/stash
