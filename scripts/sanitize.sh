#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) on every kernel, on small problems with
# lengths that are not multiples of any tile, causal and not, each head_dim the kernel has.
# Sk = 777 gives every rung more key tiles than its shared-memory ring has stages (7 tiles of 128
# keys against 3-4 stages on the Hopper rungs, 25 of 32 on rung 4), so slot reuse is exercised.
usage() {
    cat <<'USAGE'
usage: scripts/sanitize.sh [FA_BENCH] [KERNELS]   (defaults: build/fa-bench, every kernel it registers)
  DTYPES="BFloat16 Float16 Float8E4M3FN"   dtypes to run (default all three; FP8 runs on wgmma_fp8 only)
  HEAD_DIMS="64 128 256"      head_dims to run (default all three; a kernel without one prints n/a)
  FA_ARGS="..."               extra fa-bench flags, e.g. a tile:
                              "--m_block_size 176 --n_block_size 32 --num_threads 352"
  COMPUTE_SANITIZER=PATH      the tool (default compute-sanitizer on PATH)
Runs memcheck, racecheck and synccheck on Sq 300, Sk 777, head_dim 64, 128 and 256, causal 0 and 1.
Prints one line per run and exits 1 if any tool reported an error, 2 if fa-bench is missing.
USAGE
}
set -uo pipefail
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
esac
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fa_bench="${1:-$repo/build/fa-bench}"
if [[ ! -f "$fa_bench" || ! -x "$fa_bench" ]]; then
    echo "sanitize.sh: fa-bench binary not found or not executable: $fa_bench (build it, or pass its path; --help)" >&2
    exit 2
fi
# Every kernel in rung order, from fa-bench's own list.
kernels="${2:-$("$fa_bench" --list | awk '/ rung /{print $1}' | paste -sd, -)}"
sanitizer="${COMPUTE_SANITIZER:-compute-sanitizer}"
read -r -a extra <<< "${FA_ARGS:-}"
status=0
for tool in memcheck racecheck synccheck; do
    for kernel in ${kernels//,/ }; do
        for dtype in ${DTYPES:-BFloat16 Float16 Float8E4M3FN}; do
            for d in ${HEAD_DIMS:-64 128 256}; do
                log="$(mktemp)"
                "$sanitizer" --tool "$tool" --error-exitcode 99 "$fa_bench" --kernel "$kernel" --dtype "$dtype" \
                    --batch_size 1 --num_head 2 --seqlen_q 300 --seqlen_k 777 --head_dim "$d" --causal 0,1 \
                    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 \
                    ${extra[@]+"${extra[@]}"} >"$log" 2>&1
                rc=$?
                summary="$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)"
                # rc 2: fa-bench found nothing it could run (kernel lacks this dtype/head_dim).
                if ((rc == 2)); then result="n/a (not instantiated)"; elif ((rc == 0)); then result="clean"; else result="FAILED rc=$rc"; status=1; fi
                printf '%-10s %-18s %-9s d=%-4s %-24s %s\n' "$tool" "$kernel" "$dtype" "$d" "$result" "$summary"
                ((rc != 0 && rc != 2)) && sed -n 1,40p "$log"
                rm -f "$log"
            done
        done
    done
done
exit $status
