#!/usr/bin/env bash
# The sweeps: fa-bench's kernels, then the peers (PyTorch's FA2 and cuDNN attention,
# FlashAttention-4, the CuTe DSL example), on one grid, into one CSV. Grid fa2: FlashAttention-2's
# benchmark grid plus the example's default problem. Grid decode: decode and serving shapes
# (GQA, split-KV), with the copy ceiling calibrated in the same call.
usage() {
    cat <<'USAGE'
usage: scripts/sweep.sh [--grid fa2|decode] [--dry-run] [FA_BENCH] [OUT_DIR]
  --grid fa2      (default) FlashAttention-2's benchmark grid -> OUT_DIR/ladder.csv
  --grid decode   decode and serving shapes -> OUT_DIR/decode.csv
  --dry-run       print the steps without running them (nothing is written; the binary is only
                  asked for its --list)
  FA_BENCH  fa-bench binary                  (default build/fa-bench in the repo)
  OUT_DIR   folder for the CSV and schema.json (default results/<gpu name from nvidia-smi, slugged>,
            and its decode/ subfolder for --grid decode)
Environment:
  KERNELS          fa-bench --kernel value        (default: fa2 all; decode every tiled (fused)
                   kernel of fa-bench --list: naive materializes S, hopeless at Sk = 256k)
  FA_BENCH_ARGS    extra fa-bench flags, e.g. "--use_cold_l2"   (default none). The CuTe example's
                   tile on every rung, next to the example itself (its peer runs 128x64x128):
                   FA_BENCH_ARGS="--m_block_size 128 --n_block_size 64 --num_threads 128" PEERS=cute
                   (rungs without that tile print UNSUPPORTED naming the closest legal one)
  CALIBRATE        1: run fa-bench --calibrate first, into OUT_DIR/peaks.csv, which every fa-bench
                   call then reads (practical_gbs = the copy of this call)  (default: decode 1,
                   fa2 0)
  PEERS            peers.py --backends value      (default auto: fa2,cudnn, plus fa4 and cute when
                   installed / given; e.g. PEERS=fa2,cudnn,fa4,cute)
  FA_CUTE_EXAMPLE  the CuTe DSL example flash_attention_v2.py, or a CUTLASS checkout (for cute)
  PEERS_ARGS       extra peers.py flags           (default --check: costs seconds, only the
                   smallest grid points are small enough to check). Both sides time by default
                   with fa-bench's rule (0.2 s warm-up, >= 0.2 s timed; 1 s for a row after the
                   GPU idled); for short bursts on both, without the idle warm-up on either side:
                   FA_BENCH_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
                   PEERS_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
  PYTHON           interpreter for peers.py       (default python3; it needs torch)
  HEAD_DIMS        the head_dims to run, comma list of 64, 128, 256. Grid fa2: default all
                   three; the default problem (head_dim 128) runs only when 128 is in it. Grid
                   decode: default 128; every decode point runs each value (one fa-bench call),
                   GQA prefill only with 128; other values need INTERLEAVE=1 (peers.py --grid
                   decode is head_dim 128). Grid fa2: the whole
                   grid with two peers takes ~9.5 min on an H100 (session 33), near a device call's
                   10-minute limit: HEAD_DIMS=64,128 in one call and HEAD_DIMS=256 in the next, their
                   ladder.csv files joined after (plot.py reads several CSVs)
  INTERLEAVE       1 (default): each grid point's fa-bench call and a peers.py call on the
                   same problem flags back to back, the order alternating from point to point, so
                   both sides of a point run in the same thermal and power state; 0: every fa-bench
                   call, then one peers.py --grid fa2 (decode) call. Session 29 (H100 SXM, fa2):
                   with 0 the fa-bench rows ran at 78-80 C under sw_thermal at 1,200-1,300 MHz and
                   the peers', a minute later, at 68-76 C at 1,300-1,900 MHz. The decode grid
                   interleaves since session 30.
Grid fa2 (as peers.py --grid fa2): 16k tokens, seqlen 512..16384, batch = 16384/seqlen, with
(head_dim 64, 32 heads), (head_dim 128, 16 heads) and (head_dim 256, 16 heads); plus fa-bench's
default 4 x 8192 x 16 x 128. Every point runs causal 0 and 1 in one fa-bench call and, interleaved,
one peers.py call (18 + 1 of each; INTERLEAVE=0: the fa-bench calls, then one peers.py call).
Grid decode (as peers.py --grid decode), 32 heads, head_dim 128 (HEAD_DIMS), K/V heads 32 and 8 in
every call:
  B x Sq x Sk = 64x1x8192, 8x1x32768, 16x16x8192 (one call each), 1x1x(1k..256k) (one call: the
  decode chart's series, with the 1x1x131072 anchor), non-causal; GQA prefill 4x8192x8192, causal
  0 and 1 (one call): 5 calls, each with (interleaved) a peers.py call on its problems with
  --num_splits 0,1 (FA4 with its own heuristic and unsplit); INTERLEAVE=0: the 5 calls, then one
  peers.py --grid decode --num_splits 0,1 call.
OUT_DIR/schema.json is the binary's --schema (plot.py --schema-json reads it).
A failing step is reported and the sweep goes on; exit status 1 if any step failed, 2 for a bad
argument or a missing binary.
USAGE
}
set -uo pipefail  # no -e: one failing point must not stop the sweep

die() {  # a bad invocation: one line, exit 2
    echo "sweep.sh: $*" >&2
    exit 2
}

grid=fa2
dry_run=0
positional=()
while (($#)); do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --grid) (($# >= 2)) || die "--grid needs a value: fa2 or decode (--help)"; grid="$2"; shift 2 ;;
        --grid=*) grid="${1#--grid=}"; shift ;;
        --dry-run) dry_run=1; shift ;;
        --) shift; positional+=("$@"); break ;;
        -*) die "unknown option $1 (--help)" ;;
        *) positional+=("$1"); shift ;;
    esac
done
case "$grid" in
    fa2|decode) ;;
    *) die "--grid $grid: choose fa2 or decode" ;;
esac
((${#positional[@]} <= 2)) || die "at most two arguments, FA_BENCH and OUT_DIR; got ${#positional[@]} (--help)"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

gpu_slug() {
    # "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"; first GPU; "unknown-gpu" without nvidia-smi.
    local name
    name="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
    name="$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-+//; s/-+$//')"
    printf '%s\n' "${name:-unknown-gpu}"
}

fused_kernels() {
    # The kernels of fa-bench --list with no untiled row, comma-separated in rung order: the fused
    # ones. The list comes from the binary, so a new rung joins the decode sweep by itself.
    "$fa_bench" --list 2>/dev/null | awk '
        /^[^ ]+ +rung [0-9]+ / { kernel = $1; order[++n] = kernel; next }
        /untiled/ { untiled[kernel] = 1 }
        END { for (i = 1; i <= n; i++) if (!untiled[order[i]]) printf "%s%s", (c++ ? "," : ""), order[i] }'
}

fa_bench="${positional[0]:-$repo_root/build/fa-bench}"
# The decode sweep's files (decode.csv, schema.json, peaks.csv) go to a folder of their own, so
# they never replace the fa2 sweep's schema.json beside ladder.csv.
default_out="$repo_root/results/$(gpu_slug)"
[[ $grid == decode ]] && default_out+="/decode"
out_dir="${positional[1]:-$default_out}"
python="${PYTHON:-python3}"
peers="${PEERS:-auto}"
read -r -a fa_bench_args <<< "${FA_BENCH_ARGS:-}"
read -r -a peers_args <<< "${PEERS_ARGS---check}"  # unset: --check; set (even empty): as given

if [[ ! -f "$fa_bench" || ! -x "$fa_bench" ]]; then
    echo "sweep.sh: fa-bench binary not found or not executable: $fa_bench (build it, or pass its path; --help)" >&2
    exit 2
fi

if [[ $grid == decode ]]; then
    csv="$out_dir/decode.csv"
    calibrate="${CALIBRATE:-1}"
    kernels="${KERNELS:-$(fused_kernels)}"
    if [[ -z "$kernels" ]]; then
        echo "sweep.sh: $fa_bench --list named no tiled kernel; running --kernel all" >&2
        kernels=all
    fi
else
    csv="$out_dir/ladder.csv"
    calibrate="${CALIBRATE:-0}"
    kernels="${KERNELS:-all}"
fi
case "$calibrate" in
    0|1) ;;
    *) die "CALIBRATE=$calibrate: 0 or 1" ;;
esac
# The fa2 grid runs every head_dim by default, the decode grid head_dim 128 (its anchors and series;
# rung 10 also has 64 and 256, session 40).
if [[ $grid == fa2 ]]; then head_dims="${HEAD_DIMS:-64,128,256}"; else head_dims="${HEAD_DIMS:-128}"; fi
wanted() { [[ ",$head_dims," == *",$1,"* ]]; }  # is head_dim $1 in HEAD_DIMS
IFS=, read -r -a head_dim_list <<< "$head_dims"
((${#head_dim_list[@]} > 0)) || die "HEAD_DIMS=$head_dims: each value one of 64, 128, 256"
for d in "${head_dim_list[@]}"; do
    case "$d" in
        64|128|256) ;;
        *) die "HEAD_DIMS=$head_dims: each value one of 64, 128, 256" ;;
    esac
done
interleave="${INTERLEAVE:-1}"
case "$interleave" in
    0|1) ;;
    *) die "INTERLEAVE=$interleave: 0 or 1" ;;
esac
# Without interleaving the peers run peers.py's whole --grid fa2, which has no head_dim filter.
if [[ $grid == fa2 && $interleave == 0 ]] && ! { wanted 64 && wanted 128 && wanted 256; }; then
    die "HEAD_DIMS=$head_dims needs INTERLEAVE=1 (peers.py --grid fa2 runs every head_dim)"
fi
if [[ $grid == decode && $interleave == 0 && $head_dims != 128 ]]; then
    die "HEAD_DIMS=$head_dims needs INTERLEAVE=1 (peers.py --grid decode runs head_dim 128)"
fi
peaks="$out_dir/peaks.csv"
peaks_args=()
((calibrate)) && peaks_args=(--peaks_file "$peaks")

if ((!dry_run)); then
    mkdir -p "$out_dir" || exit 2
    if [[ -s "$csv" ]]; then
        # fa-bench and peers.py append; keep an earlier sweep's rows out of this one.
        base="${csv%.csv}"
        old="$base.$(date -u +%Y%m%dT%H%M%SZ).csv"
        mv "$csv" "$old" && echo "sweep.sh: moved the previous $csv to $old"
    fi
fi

steps=0
failed=()
run_step() {
    # Runs "$@" (prints it only, with --dry-run), echoing it first; records it in `failed` when it
    # exits non-zero.
    steps=$((steps + 1))
    echo "+ $*"
    ((dry_run)) && return 0
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
if ((dry_run)); then
    steps=$((steps + 1))
    echo "+ $fa_bench --schema > $out_dir/schema.json"
else
    run_step save_schema
fi

if ((calibrate)); then
    # The copy ceiling (and GEMM peaks) of this GPU now, cached where this sweep's fa-bench calls
    # read it: their practical_gbs / pct_of_copy then compare with a copy measured in the same call
    # (the bound uses model v2's ceilings, not these). Without a GPU it fails as a step and the rows
    # fall back to fa-bench's table of measured figures.
    run_step "$fa_bench" --calibrate --peaks_file "$peaks"
fi

bench() {  # fa-bench on one comma-list problem set, every selected kernel, into the CSV
    run_step "$fa_bench" "$@" --dtype BFloat16 --kernel "$kernels" --csv "$csv" ${peaks_args[@]+"${peaks_args[@]}"} \
        ${fa_bench_args[@]+"${fa_bench_args[@]}"}
}

# Peer rows carry the commit fa-bench stamped on its rows (the build's), not whatever this
# checkout's .git says: a copied tree may carry a stale or no .git.
# peers.py takes the CSV columns and the FLOP and byte counts from the same binary (--fa-bench).
run_peers() {  # peers.py with the given problem flags, every selected backend, into the CSV
    local fa_commit
    fa_commit="$(awk -F, 'NR == 2 {print $2; exit}' "$csv" 2>/dev/null)"
    FA_GIT_COMMIT="${fa_commit:-${FA_GIT_COMMIT:-}}" run_step "$python" "$repo_root/scripts/peers.py" "$@" \
        --backends "$peers" --fa-bench "$fa_bench" --csv "$csv" ${peers_args[@]+"${peers_args[@]}"}
}

peers_grid=()
peer_extra=()  # flags only the peers' calls take
points=0
at_point() {
    # fa-bench's call on the problem flags "$@" and, with INTERLEAVE, peers.py's on the same ones,
    # who goes first alternating from point to point.
    if ((!interleave)); then
        bench "$@"
    elif ((points % 2 == 0)); then
        bench "$@"
        run_peers "$@" ${peer_extra[@]+"${peer_extra[@]}"}
    else
        run_peers "$@" ${peer_extra[@]+"${peer_extra[@]}"}
        bench "$@"
    fi
    points=$((points + 1))
}
if [[ $grid == fa2 ]]; then
    point() {  # B S H D: causal 0 and 1
        at_point --batch_size "$1" --seqlen_q "$2" --seqlen_k "$2" --num_head "$3" --head_dim "$4" --causal 0,1
    }
    tokens=16384
    # head_dim num_head: FA2's hidden size 2048 at 64 and 128; head_dim 256 at 16 heads (issue #10)
    for config in "64 32" "128 16" "256 16"; do
        read -r head_dim num_head <<< "$config"
        wanted "$head_dim" || continue
        for seqlen in 512 1024 2048 4096 8192 16384; do
            point $((tokens / seqlen)) "$seqlen" "$num_head" "$head_dim"
        done
    done
    wanted 128 && point 4 8192 16 128  # the CuTe DSL example's default problem
    ((interleave)) || peers_grid=(--grid fa2)
else
    # 32 query heads, K/V heads 32 (MHA) and 8 (GQA), every HEAD_DIMS value (default 128) in every
    # call. Sq and Sk of different points are never crossed: one call per (B, Sq, Sk) set, the Sk
    # series in one call.
    # FA4 takes a split count: its heuristic (0) and unsplit (1), one row each; SDPA picks its own.
    peer_extra=(--num_splits 0,1)
    decode_point() {  # B Sq Sk[,Sk...]: non-causal (a decode step sees the whole cache)
        at_point --batch_size "$1" --seqlen_q "$2" --seqlen_k "$3" --num_head 32 --num_head_kv 32,8 \
            --head_dim "$head_dims" --causal 0
    }
    decode_point 64 1 8192
    decode_point 8 1 32768
    decode_point 16 16 8192
    series=()
    for ((sk = 1024; sk <= 262144; sk *= 2)); do series+=("$sk"); done
    decode_point 1 1 "$(IFS=,; echo "${series[*]}")"  # the chart's B = 1 series; 131072 is an anchor
    # GQA prefill beside MHA on the same shape: grouping must not cost when row blocks fill the GPU.
    # Head_dim 128 only (the fa2 grid has prefill at every head_dim).
    wanted 128 && at_point --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 32,8 --head_dim 128 --causal 0,1
    ((interleave)) || peers_grid=(--grid decode --num_splits 0,1)
fi

((${#peers_grid[@]} > 0)) && run_peers "${peers_grid[@]}"
# peers.py writes a peer row's measurement and fa-bench's FLOP and byte counts, not the napkin
# model's columns (a peer's tile is not known; remodel.py models it at fa-bench's fastest rung's
# default tile). Filled here, so that the CSV a sweep leaves has pct_of_bound on every timed row
# (scripts/tests/test_remodel.py asks it of every committed result; sessions 38 and 39 ran it by hand).
run_step "$python" "$repo_root/scripts/remodel.py" --fa-bench "$fa_bench" "$csv"

if ((dry_run)); then
    echo "sweep.sh: dry run, $steps steps; nothing was run"
    exit 0
fi
echo "sweep.sh: $steps steps, ${#failed[@]} failed; rows in $csv"
if ((${#failed[@]} > 0)); then
    printf 'sweep.sh: failed: %s\n' "${failed[@]}" >&2
    exit 1
fi
plots="$( [[ $grid == decode ]] && echo " --plots decode" )"
echo "sweep.sh: charts: build/venv/bin/python scripts/plot.py $csv --out $out_dir/plots$plots" \
    "--schema-json $out_dir/schema.json"
