#!/usr/bin/env bash
# Prepared in session 36, not run (no device time left): the first three calls of the next session's grid,
# on one warm machine, each carrying one of session 35's four 16.4 MiB parts of the peers' site
# (.exp/s35site/p1, p2, p3; FA4 4.0.0b36, CuTe DSL 4.8.1) and the first also the HEAD build
# (.exp/s36g.tar.xz: fa-bench at 29ecfd5, device SASS md5 631947ec..., built here, not committed), to
# /tmp/stash; carry [".exp/s36g.tar.xz", ".exp/s35site/p1"], then p2, then p3. next_grid.sh carries p4.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s36g.tar.xz .exp/s35site/p*/* /tmp/stash/ 2>/dev/null; ls -la /tmp/stash
