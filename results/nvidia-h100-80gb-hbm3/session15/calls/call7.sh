#!/usr/bin/env bash
# Session 15 call 7 (right after call 6, same machine): the first half of the CuTe DSL site to
# /tmp/stash for call 8 (a 64 MiB carry limit per call).
set -uo pipefail
mkdir -p /tmp/stash && cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ && ls -la /tmp/stash
# Call 7b (same machine, next): the binary too, since call 8's carry with it passed 64 MiB:
#   mkdir -p /tmp/stash && cp .deps/s15d-bench.tar.xz /tmp/stash/
