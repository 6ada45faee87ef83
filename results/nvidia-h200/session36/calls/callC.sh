#!/usr/bin/env bash
# Session 36 calls C1-C3 (call B's machine, warm): the committed build (.exp/s35b.tar.xz) and the peers'
# site in parts (.exp/s35site/p1, p2, p3: session 35's four 16.4 MiB parts of session 29's site, FA4
# 4.0.0b36 and CuTe DSL 4.8.1) to /tmp/stash for call C4; each call carries one part.
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s35b.tar.xz .exp/s35site/p*/* /tmp/stash/ 2>/dev/null; ls -la /tmp/stash
