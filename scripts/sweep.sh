#!/usr/bin/env bash
# The ladder sweep: every fa-bench kernel, then the peers (PyTorch's FA2 and cuDNN attention,
# FlashAttention-4, the CuTe DSL example), on FlashAttention-2's benchmark grid plus the
# example's default problem, into one CSV.
usage() {
    cat <<'USAGE'
usage: scripts/sweep.sh [FA_BENCH] [OUT_DIR]
  FA_BENCH  fa-bench binary                  (default build/fa-bench in the repo)
  OUT_DIR   folder for ladder.csv and schema.json (default results/<gpu name from nvidia-smi, slugged>)
Environment:
  KERNELS          fa-bench --kernel value        (default all)
  FA_BENCH_ARGS    extra fa-bench flags, e.g. "--use_cold_l2"   (default none)
  PEERS            peers.py --backends value      (default auto: fa2,cudnn, plus fa4 and cute when
                   installed / given; e.g. PEERS=fa2,cudnn,fa4,cute)
  FA_CUTE_EXAMPLE  the CuTe DSL example flash_attention_v2.py, or a CUTLASS checkout (for cute)
  PEERS_ARGS       extra peers.py flags           (default --check: costs seconds, only the
                   smallest grid points are small enough to check)
  PYTHON           interpreter for peers.py       (default python3; it needs torch)
Grid (as peers.py --grid fa2): 16k tokens, seqlen 512..16384, batch = 16384/seqlen, with
(head_dim 64, 32 heads) and (head_dim 128, 16 heads); plus fa-bench's default 4 x 8192 x 16 x 128.
Every point runs causal 0 and 1 in one fa-bench call: 12 + 1 calls, then one peers.py call.
OUT_DIR/schema.json is the binary's --schema (plot.py --schema-json reads it).
A failing step is reported and the sweep goes on; exit status 1 if any step failed, 2 if the
binary is missing.
USAGE
}
set -uo pipefail  # no -e: one failing point must not stop the sweep
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
esac

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

gpu_slug() {
    # "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"; first GPU; "unknown-gpu" without nvidia-smi.
    local name
    name="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
    name="$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-+//; s/-+$//')"
    printf '%s\n' "${name:-unknown-gpu}"
}

fa_bench="${1:-$repo_root/build/fa-bench}"
out_dir="${2:-$repo_root/results/$(gpu_slug)}"
kernels="${KERNELS:-all}"
python="${PYTHON:-python3}"
peers="${PEERS:-auto}"
read -r -a fa_bench_args <<< "${FA_BENCH_ARGS:-}"
read -r -a peers_args <<< "${PEERS_ARGS---check}"  # unset: --check; set (even empty): as given

if [[ ! -f "$fa_bench" || ! -x "$fa_bench" ]]; then
    echo "sweep.sh: fa-bench binary not found or not executable: $fa_bench (build it, or pass its path; --help)" >&2
    exit 2
fi
mkdir -p "$out_dir" || exit 2
csv="$out_dir/ladder.csv"
if [[ -s "$csv" ]]; then
    # fa-bench and peers.py append; keep an earlier sweep's rows out of this one.
    old="$out_dir/ladder.$(date -u +%Y%m%dT%H%M%SZ).csv"
    mv "$csv" "$old" && echo "sweep.sh: moved the previous $csv to $old"
fi

steps=0
failed=()
run_step() {
    # Runs "$@", echoing it first; records it in `failed` when it exits non-zero.
    steps=$((steps + 1))
    echo "+ $*"
    "$@"
    local rc=$?
    if ((rc != 0)); then
        echo "sweep.sh: step failed (exit $rc): $*" >&2
        failed+=("$* (exit $rc)")
    fi
}

save_schema() {  # the binary's own description, next to its rows
    "$fa_bench" --schema >"$out_dir/schema.json"
}
run_step save_schema

bench_point() {  # B S H D: one fa-bench call, causal 0 and 1
    run_step "$fa_bench" --batch_size "$1" --seqlen_q "$2" --seqlen_k "$2" --num_head "$3" --head_dim "$4" \
        --causal 0,1 --dtype BFloat16 --kernel "$kernels" --csv "$csv" ${fa_bench_args[@]+"${fa_bench_args[@]}"}
}

tokens=16384
for config in "64 32" "128 16"; do  # head_dim num_head: hidden size 2048 either way
    read -r head_dim num_head <<< "$config"
    for seqlen in 512 1024 2048 4096 8192 16384; do
        bench_point $((tokens / seqlen)) "$seqlen" "$num_head" "$head_dim"
    done
done
bench_point 4 8192 16 128  # the CuTe DSL example's default problem

# Peer rows carry the commit fa-bench stamped on its rows (the build's), not whatever this
# checkout's .git says: a copied tree may carry a stale or no .git.
# peers.py takes the CSV columns and the FLOP and byte counts from the same binary (--fa-bench).
fa_commit="$(awk -F, 'NR == 2 {print $2; exit}' "$csv" 2>/dev/null)"
FA_GIT_COMMIT="${fa_commit:-${FA_GIT_COMMIT:-}}" run_step "$python" "$repo_root/scripts/peers.py" --grid fa2 \
    --backends "$peers" --fa-bench "$fa_bench" --csv "$csv" ${peers_args[@]+"${peers_args[@]}"}

echo "sweep.sh: $steps steps, ${#failed[@]} failed; rows in $csv"
if ((${#failed[@]} > 0)); then
    printf 'sweep.sh: failed: %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "sweep.sh: charts: build/venv/bin/python scripts/plot.py $csv --out $out_dir/plots" \
    "--schema-json $out_dir/schema.json"
