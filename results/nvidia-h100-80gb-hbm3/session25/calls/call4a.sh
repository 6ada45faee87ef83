#!/usr/bin/env bash
# Session 25 calls 4a / 4b: the CuTe DSL site's first two parts and s25fin to /tmp/stash on the
# warm machine for call 4c (the FA2 grid with FA4, which needs the site; one call carries at most
# 64 MiB with the tree).
set -uo pipefail
mkdir -p /tmp/stash && cp .whl/cute/q1/cute_site.q.aa .exp/s25fin.tar.xz /tmp/stash/ && ls -la /tmp/stash
