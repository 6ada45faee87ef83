#!/usr/bin/env bash
# Session 35 calls G1 and G2 (a fresh H200, then the same machine): fa-bench (commit 8003e0e, the same device
# code as call A's) and the peers' site's parts 3 and 1 to /tmp/stash for call G3.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s35b.tar.xz .exp/s29w1/* .exp/s29w3/* /tmp/stash/ 2>/dev/null; ls -la /tmp/stash
