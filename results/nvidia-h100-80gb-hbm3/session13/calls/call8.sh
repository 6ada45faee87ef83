#!/usr/bin/env bash
# Session 13 call 8: stash the first half of the CuTe DSL site (nvidia-cutlass-dsl 4.8.1 with its
# -libs-base, -libs-core, -libs-cu13 and protobuf, pip-installed for Python 3.12 on the development
# machine and packed with tar | xz; 75 MB, over one call's 64 MiB) for call 9, on the same machine.
set -uo pipefail
mkdir -p /tmp/stash && cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ && ls -la /tmp/stash
python3 -c "import google.protobuf, cuda.bindings, typing_extensions; print('protobuf', google.protobuf.__version__, 'cuda.bindings ok')" 2>&1 | tail -1
