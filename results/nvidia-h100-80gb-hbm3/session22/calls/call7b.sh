#!/usr/bin/env bash
# Session 22 calls 7a / 7b: the CuTe DSL site in three parts to /tmp/stash for call 7c (the working
# tree has grown to 26 MB of the 64 MiB carry limit since session 16's two-part stash).
set -uo pipefail
mkdir -p /tmp/stash && cp .whl/cute/q2/cute_site.q.ab /tmp/stash/ && ls -la /tmp/stash
