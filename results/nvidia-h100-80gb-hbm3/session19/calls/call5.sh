#!/usr/bin/env bash
# Session 19 call 5: stashes the first half of the CuTe DSL site in /tmp/stash (the machine was handed
# back after call 4) for call 6.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/stash
cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ && ls -la /tmp/stash | tee $L/stash.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
