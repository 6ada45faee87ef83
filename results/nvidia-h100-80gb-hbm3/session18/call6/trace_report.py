#!/usr/bin/env python3
"""Reads rung 9's clock64 trace (FA_RUNG9_TRACE build, one launch) and prints where a CTA's time goes.
Layout: [cta 132][tile 40][role 4][event 8] uint64. Roles 0/1: consumer warpgroups (events: 0 before
bar_q wait, 1 after, 2 after first_batch, 3 after the overlap loop, 4 after last_batch, 5 after the
epilogue); 2: producer (0 tile start, 1 before q_empty wait, 2 after it, 3 after the tile's loads);
3, tile 0: 0 globaltimer start, 1 clock start, 2/3 clock end per warpgroup, 4/5 globaltimer end;
3, tile 1, events 2/3: tiles run per warpgroup."""
import sys
import numpy as np

CTAS, TILES, EV = 132, 40, 8
t = np.fromfile(sys.argv[1], dtype=np.uint64).reshape(CTAS, TILES, 4, EV).astype(np.float64)
g0 = t[:, 0, 3, 0]
g_end = np.maximum(t[:, 0, 3, 4], t[:, 0, 3, 5])
c0 = t[:, 0, 3, 1]
c_end = np.maximum(t[:, 0, 3, 2], t[:, 0, 3, 3])
ghz = (c_end - c0) / (g_end - g0)  # cycles per ns, per CTA
us = lambda cyc, cta: cyc / ghz[cta] / 1000.0
span = (g_end.max() - g0.min()) / 1000.0
n_tiles = t[:, 1, 3, 2].astype(int)
print(f"kernel span {span:.1f} us (first CTA start to last CTA end, globaltimer); clock {np.median(ghz):.3f} GHz")
print(f"CTA starts spread over {(g0.max() - g0.min()) / 1000:.2f} us; ends spread over {(g_end.max() - g_end.min()) / 1000:.2f} us")
idle_head = (g0 - g0.min()).sum() / 1000.0
idle_tail = (g_end.max() - g_end).sum() / 1000.0
print(f"SM time idle before CTA start {100 * idle_head / (CTAS * span):.1f} %, after CTA end {100 * idle_tail / (CTAS * span):.1f} %")
print(f"tiles per CTA: min {n_tiles.min()} max {n_tiles.max()} mean {n_tiles.mean():.2f}")
rows = {k: [] for k in ["first bar_q wait (tile 0)", "CTA start -> tile 0 bar_q done", "bar_q wait (later tiles)",
                        "first_batch", "overlap loop", "last_batch", "epilogue", "tile period (bar_q done to next)",
                        "producer q_empty wait", "producer tile (start to loads issued)", "Q issue -> WG0 bar_q done"]}
for wg in (0, 1):
    for k in rows: rows[k] = []
    for c in range(CTAS):
        n = n_tiles[c]
        e = t[c, :, wg, :]
        rows["first bar_q wait (tile 0)"].append(us(e[0, 1] - e[0, 0], c))
        rows["CTA start -> tile 0 bar_q done"].append(us(e[0, 1] - c0[c], c))
        for i in range(min(n, TILES)):
            if i >= 1: rows["bar_q wait (later tiles)"].append(us(e[i, 1] - e[i, 0], c))
            rows["first_batch"].append(us(e[i, 2] - e[i, 1], c))
            rows["overlap loop"].append(us(e[i, 3] - e[i, 2], c))
            rows["last_batch"].append(us(e[i, 4] - e[i, 3], c))
            rows["epilogue"].append(us(e[i, 5] - e[i, 4], c))
            if i + 1 < min(n, TILES): rows["tile period (bar_q done to next)"].append(us(e[i + 1, 1] - e[i, 1], c))
            pr = t[c, i, 2, :]
            if wg == 0:
                if i >= 2: rows["producer q_empty wait"].append(us(pr[2] - pr[1], c))
                rows["producer tile (start to loads issued)"].append(us(pr[3] - pr[0], c))
                rows["Q issue -> WG0 bar_q done"].append(us(e[i, 1] - pr[2], c))
    print(f"-- consumer warpgroup {wg} (us: median, mean, p90, max; n)")
    for k, v in rows.items():
        if v:
            a = np.array(v)
            print(f"  {k:40s} {np.median(a):7.3f} {a.mean():7.3f} {np.percentile(a, 90):7.3f} {a.max():7.3f}  n={len(a)}")
