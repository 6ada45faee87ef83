#!/usr/bin/env bash
# Session 37: the peers' site (session 35's four 16.4 MiB parts, .exp/s35site/p1..p4: FA4 4.0.0b36, CuTe DSL
# 4.8.1) and the builds to /tmp/stash on one warm machine, one part a call (carry p1 with the builds, then
# p2, then p3; the call that uses them carries p4).
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s3*.tar.xz .exp/s35site/p*/* /tmp/stash/ 2>/dev/null; ls -la /tmp/stash
