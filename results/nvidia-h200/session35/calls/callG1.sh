#!/usr/bin/env bash
# Session 35 calls G1-G3 (a fresh H200, then the same machine): fa-bench (commit 8003e0e, the same device code
# as call A's) and the peers' site (session 29's, re-split in four parts of 16.4 MiB, .exp/s35site/pN: the
# working tree that travels is 40 MiB now, and a 23 MiB part with it was refused) to /tmp/stash for call G4.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s35b.tar.xz .exp/s35site/p*/* /tmp/stash/ 2>/dev/null; ls -la /tmp/stash
