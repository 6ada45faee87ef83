#!/usr/bin/env python3
"""Writes decode_synthetic.csv: made-up rows of a `scripts/sweep.sh --grid decode` run, for plot.py's tests.

    build/venv/bin/python scripts/tests/data/make_decode_synthetic.py [FA_BENCH]

The columns are the binary's (`fa-bench --schema`) and so are the analytic columns of every row
(fa_schema.analytic_rows), so regenerate it when fa-bench's CSV changes. Times are invented: each
kernel reads the compulsory bytes at a rate that saturates with seqlen_k,
    GB/s = RATE[kernel] * Sk / (Sk + 4096),
(prefill rows: a TFLOP/s per kernel instead), so a test can recompute every expected number from
the CSV's own text. Nothing here was measured; every row's note says "synthetic test data".
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # scripts/: fa_schema, peer_backends

import fa_schema  # noqa: E402
from peer_backends.common import decode_grid  # noqa: E402

OUT = HERE / "decode_synthetic.csv"
GPU = "Synthetic GPU"
PRACTICAL_GBS = 2995.3  # the copy fa-bench's rows carry, as if calibrated in the same call
PRACTICAL_SOURCE = "calibrated:2026-01-01T00:00:00Z"
PRACTICAL_TFLOPS = 769.0
PEERS = ("torch_fa2", "torch_cudnn", "fa4")
# Decode rates (GB/s at Sk -> infinity) per kernel; with 8 K/V heads cuDNN is made the fastest (so
# the tables have a peer ahead somewhere) and FA4, unsplit as its sm90 path is, slow.
RATE = {"tiled": 30.0, "mma": 2500.0, "wgmma_overlap": 2900.0, "torch_fa2": 2800.0, "torch_cudnn": 2850.0,
        "fa4": 1400.0}
GQA_RATE = {"torch_cudnn": 2950.0, "fa4": 350.0}
# Prefill TFLOP/s per kernel (GQA rows at 99 % of these).
PREFILL_TFLOPS = {"tiled": 36.0, "mma": 330.0, "wgmma_overlap": 650.0, "torch_fa2": 340.0, "torch_cudnn": 640.0,
                  "fa4": 680.0}


def rate(kernel: str, p) -> float:
    peak = GQA_RATE.get(kernel, RATE[kernel]) if p.gqa else RATE[kernel]
    return peak * p.seqlen_k / (p.seqlen_k + 4096)


def main() -> int:
    schema = fa_schema.load(sys.argv[1] if len(sys.argv) > 1 else None)
    problems = decode_grid(["BFloat16"])
    analytic = fa_schema.analytic_rows(schema.fa_bench, [p.key for p in problems])
    rows = []
    for p in problems:
        a = analytic[p.key]
        flops, nbytes = int(a["flops"]), int(a["compulsory_bytes"])
        decode = p.seqlen_q < p.seqlen_k
        for kernel in (*RATE, "fa4-heuristic"):
            peer = kernel in PEERS or kernel == "fa4-heuristic"
            row = {c: "" for c in schema.columns}
            row.update(timestamp="2026-01-01T00:00:00Z", git_commit="0000000", gpu=GPU, sm_count=132, sm_clock_mhz=1980,
                       driver_version="580.00", cuda_runtime="13.0", kernel=kernel.split("-")[0], dtype=p.dtype,
                       layout="bhsd" if kernel.startswith("torch") else "bshd", batch_size=p.batch,
                       seqlen_q=p.seqlen_q, seqlen_k=p.seqlen_k, num_head=p.num_head, num_head_kv=p.num_head_kv,
                       head_dim=p.head_dim, is_causal=int(p.causal), warmup_iterations=5 if peer else 3,
                       iterations=20 if peer else 10, use_cold_l2=0, seed=0, note="synthetic test data", **a)
            if kernel == "fa4-heuristic":  # FA4 asked for its own split count: refused on sm90
                row["check"] = "SKIPPED"
                row["note"] = ("refused: FA4 has no split-KV on this GPU's path (AssertionError: SplitKV not "
                               "supported on SM 9.0); synthetic test data")
                rows.append(row)
                continue
            if kernel == "fa4":
                row["num_splits"] = 1
            if not peer:
                row.update(num_splits=4 if decode and kernel != "tiled" else 1, pack_gqa=int(p.gqa and decode),
                           practical_source=PRACTICAL_SOURCE, practical_tflops=PRACTICAL_TFLOPS,
                           practical_gbs=PRACTICAL_GBS)
            if decode:
                ms = nbytes / (rate(kernel, p) * 1e6)
            else:
                ms = flops / (PREFILL_TFLOPS[kernel] * (0.99 if p.gqa else 1.0) * 1e9)
            gbs = nbytes / (ms * 1e6)
            row.update(time_ms_median=f"{ms:.9g}", time_ms_min=f"{ms * 0.98:.9g}", time_ms_max=f"{ms * 1.03:.9g}",
                       noise_pct=1.0, tflops=f"{flops / (ms * 1e9):.6g}", bandwidth_gbs=f"{gbs:.6g}", check="PASS")
            if not peer:
                row["pct_of_copy"] = f"{100 * gbs / PRACTICAL_GBS:.6g}"
            rows.append(row)
    with OUT.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=schema.columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{OUT}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
