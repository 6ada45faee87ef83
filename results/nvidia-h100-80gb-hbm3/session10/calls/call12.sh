#!/usr/bin/env bash
# Session 10 call 12 (first of a pair): stashes the CuTe DSL site's first half for call 13's FA4;
# the final binary's --list.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/
tar -xJf .deps/bin.tar.xz -C /tmp/new
/tmp/new/fa-bench --list > $L/list.txt 2>&1; echo "list rc=$?"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
