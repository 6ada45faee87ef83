#!/usr/bin/env bash
# Session 15 calls 10a and 10b (back to back, same machine, before call 11): the CuTe DSL site's first
# half (10a, carry .whl/cute/p1) and s15d's fa-bench (10b, carry .deps/s15d-bench.tar.xz) to
# /tmp/stash: with either, call 11's carry passes 64 MiB. Each call ran one of these lines.
mkdir -p /tmp/stash && cp .whl/cute/p1/cute_site.part.aa /tmp/stash/   # 10a
mkdir -p /tmp/stash && cp .deps/s15d-bench.tar.xz /tmp/stash/          # 10b
