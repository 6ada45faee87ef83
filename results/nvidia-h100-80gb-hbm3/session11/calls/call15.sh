#!/usr/bin/env bash
# Session 11 call 15 (first of a pair): stashes the CuTe DSL site's first half for call 16's FA4.
set -uo pipefail
mkdir -p /tmp/stash $OUT/logs
cp .whl/p1/cute_site.part.aa /tmp/stash/ && ls -la /tmp/stash > $OUT/logs/stash.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
