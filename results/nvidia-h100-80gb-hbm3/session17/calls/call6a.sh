#!/usr/bin/env bash
# Session 17 call 6a: the first half of the CuTe DSL site to /tmp/stash for call 6b (the 64 MiB carry
# limit per call); 6b follows on the same warm machine.
set -uo pipefail
mkdir -p /tmp/stash && cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ && ls -la /tmp/stash
