#!/usr/bin/env bash
# Smoke test of peers.py's cudnn_fp8 backend on the GPU machine, from the repository root, offline.
#   bash .whl/cudnn_fe/smoke.sh [FA_BENCH]
# Needs: python3 with PyTorch (its nvidia-cudnn-cu* libcudnn), the cudnn-frontend wheel in
# .whl/cudnn_fe/ (carried: .whl/ is gitignored), and an fa-bench binary for the schema and the
# analytic columns (no GPU use): the first argument or FA_BENCH, else /tmp/b/fa-bench, build/fa-bench
# or build90/fa-bench, else the fa-bench of the newest .deps/*.tar.xz (carried), unpacked to
# /tmp/cudnn_fp8_smoke_bin. Writes $OUT/cudnn_fp8_smoke.csv (OUT defaults to /tmp/cudnn_fp8_smoke).
# The wheel is nvidia-cudnn-frontend 1.26.0 (graph API compiled, no dependencies); if it does not
# import or finds no libcudnn, .whl/cudnn_fe/alt/ holds 1.19.1 (the release made for cuDNN 9.19,
# also compiled) and 1.32.0 (the newest: a pure-Python graph over the same backend, whose
# cutlass-dsl / tvm-ffi dependencies are left out; the backend path needs neither), tried in turn.
set -uo pipefail
out="${OUT:-/tmp/cudnn_fp8_smoke}"
mkdir -p "$out"
py=python3
fa_bench="${1:-${FA_BENCH:-}}"
if [[ -z "$fa_bench" ]]; then
    for candidate in /tmp/b/fa-bench build/fa-bench build90/fa-bench; do
        [[ -x "$candidate" ]] && { fa_bench="$candidate"; break; }
    done
fi
if [[ -z "$fa_bench" ]] && tarball="$(ls -t .deps/*.tar.xz 2>/dev/null | head -n 1)" && [[ -n "$tarball" ]]; then
    mkdir -p /tmp/cudnn_fp8_smoke_bin && tar -xJf "$tarball" -C /tmp/cudnn_fp8_smoke_bin fa-bench &&
        fa_bench=/tmp/cudnn_fp8_smoke_bin/fa-bench
fi
[[ -n "$fa_bench" && -x "$fa_bench" ]] || { echo "smoke: no fa-bench binary (pass one, set FA_BENCH, or build build/)" >&2; exit 2; }

"$py" --version
"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "torch cudnn",
torch.backends.cudnn.version(), torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))'

frontend_works() {  # the bare import (what the frontend finds on its own), then the backend's setup
    "$py" -c 'import cudnn; print("bare import: cudnn-frontend", cudnn.__version__, "backend_version", cudnn.backend_version())' ||
        echo "smoke: the bare import failed; cudnn_fp8.setup loads PyTorch's libcudnn first, which decides"
    "$py" - <<'PY'
import sys, torch
sys.path.insert(0, "scripts")
from peer_backends import cudnn_fp8
print("PyTorch's libcudnn:", cudnn_fp8.torch_cudnn_library())
b = cudnn_fp8.CudnnFp8()
b.setup(torch)
print("cudnn_fp8 setup: cuDNN", cudnn_fp8.version_text(b.version), "frontend", b.cudnn.__version__,
      "bf16 O" if b.bf16_output else "FP8 O")
PY
}

install() {  # $1: wheel, $2: target
    rm -rf "$2"
    "$py" -m pip install -q --no-deps --no-index --disable-pip-version-check --target "$2" "$1" || return 1
    export PYTHONPATH="$2${base_pythonpath:+:$base_pythonpath}"
}

base_pythonpath="${PYTHONPATH:-}"
wheel="$(ls .whl/cudnn_fe/*.whl | head -n 1)"
echo "wheel: $wheel ($(stat -c %s "$wheel") bytes)"
if ! { install "$wheel" /tmp/cfe && frontend_works; }; then
    works=0
    for alt in .whl/cudnn_fe/alt/*.whl; do
        [[ -f "$alt" ]] || continue
        echo "smoke: trying $alt"
        if install "$alt" /tmp/cfe_alt && frontend_works; then works=1; break; fi
    done
    ((works)) || { echo "smoke: no cudnn-frontend wheel works here" >&2; exit 1; }
fi

csv="$out/cudnn_fp8_smoke.csv"
rm -f "$csv"
rc=0
# The brief's problem: cudnn_fp8 and SDPA's cuDNN on FP8 and bf16 (each refuses the other's dtype).
timeout 300 "$py" scripts/peers.py --fa-bench "$fa_bench" --backends cudnn_fp8,cudnn --dtype Float8E4M3FN,BFloat16 \
    --batch_size 1 --num_head 16 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128 --causal 0,1 --check \
    --csv "$csv" || rc=$?
# What cuDNN says about GQA with seqlen_q != seqlen_k (top-left causal, a length not a multiple of
# 64) and about head_dim 256.
timeout 300 "$py" scripts/peers.py --fa-bench "$fa_bench" --backends cudnn_fp8 --dtype Float8E4M3FN \
    --batch_size 1 --num_head 16 --num_head_kv 4 --seqlen_q 1000 --seqlen_k 2048 --head_dim 128,256 --causal 1 \
    --check --csv "$csv" || rc=$?
"$py" - "$csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["kernel"], r["dtype"], f'{r["num_head"]}/{r["num_head_kv"]}x{r["seqlen_q"]}x{r["seqlen_k"]}x{r["head_dim"]}',
          "causal" if r["is_causal"] == "1" else "full", r["tflops"] or "-", r["check"], r["rel_l2_err"] or "-",
          r["max_abs_err"] or "-", "|", r["note"])
PY
echo "smoke: rc=$rc, rows in $csv"
exit "$rc"
