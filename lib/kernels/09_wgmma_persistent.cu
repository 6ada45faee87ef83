// Rung 9 — `wgmma_persistent`: rung 07 (`wgmma_overlap`) with one CTA per SM that loops over the
// tiles of query rows (FA3's persistent kernel), taking each next tile from a global counter,
// with the next tile's Q already loaded (a second Q buffer) and the issue token kept from one
// tile to the next. Same schedule (device/overlap_schedule.cuh), register split and epilogue as
// rung 07; the head_dim-128 ring has 2 stages instead of 3 (the second Q buffer's room).
//
// What changed from rung 07, and why:
//   - The fixed cost of a CTA. A rung 7 CTA pays, besides its key tiles: launch and set-up
//     (barrier init, setmaxnreg), the first loads (Q and K(0), with nothing to overlap them), the
//     ping-pong's start and drain, and the epilogue. At 32x16x512x128 (4 key tiles per CTA) that
//     was ~3.6 us of ~11 us per CTA: 389 TFLOP/s against 600 at 4x16x8192x128 (session 8 call 1;
//     the call's power-capped clocks). The compulsory bytes there (Q, K, V, O: 268 MB, 89 us at
//     3 TB/s) are half the kernel's time, so loads that do not overlap the math cost directly.
//   - Next tile's loads under this one. The producer issues tile i+1's K(0) as soon as a ring
//     slot frees (during tile i's last key tiles) and its Q into the other Q buffer (free since
//     tile i-1's epilogue), so tile i+1's first GEMM waits for nothing. With one Q buffer (this
//     rung's first version, session 8 call 2) Q(i+1) could only load after tile i's epilogue had
//     read O out of it, and the rung measured level with rung 7 (0.95-1.03x).
//   - The token is kept. Rung 7's last warpgroup retires the issue token after its last batch
//     and starts it again for the next CTA; here it passes it on, so warpgroup 0 starts tile i+1
//     while the last warpgroup runs tile i's epilogue (warpgroup 0 takes the final pass when no
//     tile is left, so every named barrier ends with as many syncs as arrivals).
//   - Order and balance. CTA b takes tile b first, then tiles from a global counter (atomicAdd)
//     in fwd_grid's order: row blocks of one (batch, head) consecutive, the last (heaviest
//     causal) first, so the tiles in flight share K/V in L2 as rung 7's do, and a CTA that drew
//     short causal tiles takes more of them (a static round-robin would leave the tail to the
//     CTAs that drew long ones). Since session 15 causal problems interleave the row blocks of
//     the head slots whose K, V, Q and O fit the L2 together (fa/grid_order.h), and below 2,048
//     keys of only as many head slots as one round of this rung's CTAs takes (fa/launch_plan.h):
//     the counter hands out the heaviest blocks of several heads before any head's light ones.
//     Session 15 call 5 (H100 SXM, bf16, 5 + 30 launches, two rounds, TFLOP/s, old order ->
//     grouped): d64 32x32x512 causal 223 -> 226, 16x32x1024 298 -> 304, 8x32x2048 360 -> 384,
//     2x32x8192 457 -> 482; d128 32x16x512 309 -> 321, 16x16x1024 418 -> 441, 8x16x2048 491 ->
//     527, 4x16x4096 541 -> 584, 2x16x8192 576 -> 611, 1x16x16384 633 -> 644; d256 32x16x512
//     299 -> 295, 16x16x1024 421 -> 435, 4x16x4096 586 -> 640, 2x16x8192 639 -> 692.
//   - The counter: two ints in global memory (work_counter below), zero at module load. Each
//     CTA's producer, after its last (failing) fetch, counts itself done; the last one resets both
//     to zero, so the next launch in the stream starts from zero without a memset launch. Two
//     launches of rung 9 must therefore not run concurrently (fa-bench launches on one stream).
//   - Synchronization added to rung 7's (wgmma_ws_kernel.cuh), per Q buffer: bar_q (Q landed),
//     q_empty (count: every consumer thread; each arrives after its epilogue, the warpgroup
//     leader after its TMA store read the O rows), waited by the producer before it loads that
//     buffer again; and a work slot the producer writes before arming bar_q (the arrive releases
//     it, the consumers' wait on bar_q acquires it), -1 meaning "no more tiles" (then bar_q gets
//     a plain arrive). The K/V ring and the consumers' ring positions (ring_slot) continue from
//     one tile to the next. One arrival per warp after __syncwarp on q_empty, as on the ring
//     slots, was flagged by racecheck at head_dim 256 (see the consumers' loop).
//   - Tiles: rung 7's, except head_dim 128 at 2 stages (Q 2 x 32 KB + 2 x 64 KB K/V = 192 KB;
//     3 stages would need 256 KB). Head_dim 64 keeps 4 stages (176 KB). Head_dim 256 has one Q
//     buffer (2 x 64 KB + 2 x 80 KB does not fit), so its next Q still waits for the epilogue,
//     since session 18 half by half (bar_q and q_empty per consumer warpgroup, 128 arrivals).
//
// Measured (results/nvidia-h100-80gb-hbm3/session8/fa2/ladder.csv: H100 SXM, bf16, 16k tokens,
// one call with cuDNN 9.19 and FA4 4.0.0b36; TFLOP/s, rung 9 / rung 7, non-causal; causal):
//   d64  S=512 370 / 287 (+29 %), 1k +18 %, 2k +13 %, 4k +10 %, 8k +7 %, 16k +5 %; causal +30 %
//        at 512 ... +9 % at 16k (198 / 152 ... 509 / 469).
//   d128 S=512 485 / 414 (+17 %), 1k +11 %, 2k +7 %, 4k +5 %, 8k +12 %, 16k -4 % (605 / 627);
//        4x16x8192 680 / 592 (+15 %); causal +22 % at 512 ... +5 % at 16k (674 / 641).
//   d256 level (one Q buffer): 0.94-1.03x non-causal, 0.99-1.03x causal.
//   Against the better of cuDNN and FA4 in that call, the best Hopper rung (mostly this one):
//   d64 0.93-0.97 non-causal, 0.74-0.94 causal; d128 0.88-1.01 / 0.93-1.02; d256 0.88-1.00 /
//   0.89-1.03. Two rounds of call 3 (the same kernel, a power-capped machine): 0.98-1.38x rung 7
//   at d64, 0.90-1.27x at d128, 0.83-1.17x at d256, the low ends single causal rows of one round
//   (the other round: 1.09, 1.04, 1.02); the 16k non-causal d128 point was +7 % there, so its
//   -4 % here is within the calls' spread.
//
// Session 9:
//   - Short causal head_dim 64: a 128 x 128 tile with 2 consumer warpgroups (WgmmaWsD64Short), the
//     default for causal problems of at most 1,024 rows (kShortCausal below): 196 -> 219 TFLOP/s
//     at 32x32x512x64, 261 -> 294 at 16x32x1024x64 (0.74 / 0.75 -> 0.82 / 0.86 of cuDNN).
//   - Not the decode tile of rungs 6-7 (64 rows, one consumer warpgroup): on many-tile decode it
//     measured slower here than this rung's 128 rows, whose second warpgroup starts the next tile
//     while the first writes this one's output (64x32x1x8192 with 8 K/V heads 699.2 us against
//     690.4, 16x32x16x8192 with 32: 703.0 against 689.6; calls 3 and 1).
//
// Session 10, measured and not kept (results/nvidia-h100-80gb-hbm3/session10/, calls 1-2, A/B
// against the session-9 binary, H100, bf16, 5 + 30 launches): O stored from registers straight
// to global memory and each Q buffer released after the tile's last S, instead of O staged in the
// Q buffer and released after the TMA store. With that, one Q buffer frees 32 KB at head_dim 128
// for a third ring stage, but the next tile's Q then loads during the last P·V and the epilogue
// only, and head_dim 128 lost 1-10 % (GQA 4x32(kv 8)x8192 619 -> 592, causal 595 -> 512-565);
// with two Q buffers kept it measured level. (A per-warpgroup Q release, each 64-row half on its
// own barriers, made ptxas spill in the head_dim-64 main loop and was not measured.) The issue-
// window change of rungs 6-7 (07_wgmma_overlap.cu, session 10) left this rung level: its window
// held no division.
//
// Session 11: the uniform warpgroup index of rung 7 (its header; ConsumerThread), Q's descriptor
// in uniform registers (d128 loop 732 -> 717 instructions, 17 R2UR -> 1). Three rounds, 5 + 30
// launches (session 11 call 1), median TFLOP/s: 2x16x8192x128 610 -> 631, causal 569 -> 590; GQA
// 599 -> 616; 2x32x8192x64 level; 2x16x8192x256 715 -> 726, causal 663 -> 628 (two rounds of three
// at 626-628: bimodal); seqlen 512 -1 to -6 %, -0.5 to -3 % per MHz. ncu at the base clock,
// 2x16x8192x128: 2.83 M -> 2.72 M cycles, 602 M -> 539 M instructions. Then rung 7's P·V wait
// inside the softmax (overlap_schedule.cuh; call 10, three rounds): 2x16x8192x128 629 -> 646,
// causal 592 -> 604; 2x32x8192x64 level to +1.5 %, 8x32x2048x64 causal 341 -> 363; d256 level.
//
// Session 14 (results/nvidia-h100-80gb-hbm3/session14/, H100 SXM, bf16): head_dim 256 with 48-key
// tiles (2 stages of 48 keys, 96 KB, so that the second Q buffer fits: 226 KiB) measured -4 to -6 %
// at 32x16x512 and -8 to -13 % at 1,024 and 2,048 keys against the 80-key tile with one Q buffer
// (call 11): S = Q·Kᵀ at N = 48 reads more shared memory per FLOP than the overlap of Q saves. And
// 160-key head_dim-128 tiles with both Q buffers (224 KB) were mixed, -12 % at 512 to +3.5 % at
// 2,048 (call 1): rung 7 took that tile (07_wgmma_overlap.cu), this rung keeps 128.
//
// Session 16 (results/nvidia-h100-80gb-hbm3/session16/, H100 SXM, bf16): ncu against cuDNN 9.19 on
// the short points it led (call 3; both persistent, 132 CTAs of 384 threads at 168 registers) found
// this rung's consumers decoding every tile's index themselves, twice (about seven integer
// divisions, ~20 instructions each: 0.43 M IABS at 32x16x512x128, ~8 % of the instructions, on the
// path from bar_q to the tile's first wgmma) and its causal mask at ~7 instructions per element
// (cuDNN ~3). Now the producer decodes once and stores the tile's BlockCoords in the work slot
// (32 bytes, store_work / load_work below), and the mask takes one bound per row (wgmma_steps.cuh).
// Call 4 (5 + 30 launches, two rounds, TFLOP/s head -> now, cuDNN of the same call in brackets):
//   d64  S=512 365.5 -> 405.6 (397.2), causal 220.9 -> 266.3 (268.9); 1,024 422.8 -> 453.7 (443.5),
//        causal 303.2 -> 345.7 (346.4); 2,048 +2 % / +7 %.
//   d128 S=512 482.3 -> 498.5 (534.4), causal 318.7 -> 339.5 (335.4); 1,024 +2 % / +5 %; 2,048 +1 %.
//   d256 S=512 485.1 -> 499.1 (551.3), causal 307.5 -> 317.6 (350.0); 1,024 +2 %; 2,048 +1-4 %.
//   Long rows (2x16x8192x128, 2x32x8192x64) level within the rounds' spread.
//
// Session 17 (results/nvidia-h100-80gb-hbm3/session17/, H100 SXM, bf16): rung 7's 160-key head_dim-128
// tile with both Q buffers (wgmma::WgmmaWsD128Wide as it is: 2 stages, so PersistentTraits fits Q
// 2 x 32 KB + 2 x (K 40 KB + V 40 KB) = 224 KB) as the default for non-causal problems of
// at least 2,048 rows, where FA4 led (session 16). Call 5, one binary, 5 + 30 launches, two rounds,
// TFLOP/s 128 -> 160 keys (rung 7 in brackets): 8x16x2048 661.6 -> 672.9 (638.7), 4x16x4096 693.2
// -> 703.2 (691.7), 2x16x8192 707.7 -> 699.4 (717.6; rounds 717 / 682), 4x16x8192 658.6 -> 720.0
// (713.2), 1x16x16384 648.2 -> 705.0 (706.2); steady state 8x16x2048 582.9 -> 590.9, 1x16x16384
// 659.8 -> 669.7. Causal stays at 128 (160: 2,048 581 -> 558, 4,096 level, 8,192 / 16k +2-4 % in
// rounds 5 % apart), and so do 512 and 1,024 keys (500 -> 442, 604 -> 581: padding). Session 14's
// measurement of the same tile (+0-3 % non-causal) predates the work slots; both times the gain is
// per-tile overhead (row max, O rescale, waits) spread over 25 % more keys.
// Measured and not kept (call 7, two rounds, TFLOP/s): the producer claiming its next tile (the
// counter's atomicAdd) at the start of the current one, so that the atomic's round trip runs under
// the tile's ring waits: non-causal level (d128 32x16x512 501.3 -> 504.3; 512-2,048 within
// +-1 %), causal -1 to -7 % (d256 8x16x2048 620.3 -> 576.5): a CTA holding a claimed tile it has
// not started unbalances the heaviest-first order, and at 512 the atomic was not what waits.
// Nor the epilogue's wait for the O store (call 8): with two Q buffers, each warpgroup leader
// waiting for its TMA store's reads (and arriving on q_empty) after the next tile's first batch
// instead of at the end of the epilogue measured level at head_dim 128 (32x16x512 502.3 -> 504.1,
// causal 340.8 -> 336.6) and -3 to -4.5 % on short causal head_dim 64 (32x32x512 267.2 -> 255.1).
// Nor ring depth (call 9): the 128-key tile at 3 stages with one Q buffer (225 KiB, the next Q
// waiting for the epilogue) instead of 2 stages and two Q buffers: 32x16x512 500.4 -> 473.7, causal
// 340.3 -> 284.1, 16x16x1024 605.2 -> 583.8, causal 478.1 -> 434.3, longer causal rows -3 to -5 %.
// Nor, at head_dim 256 (one Q buffer), handing the buffer back as soon as each warpgroup's last S
// has landed, with O stored from registers (call 10; the overlap a second buffer would buy): the
// next Q then loads under the last softmax, P·V and epilogue, but 32x16x512 499.0 -> 475.2, causal
// 318.0 -> 292.5, 1,024 -3 to -5 %, long rows -1 to -6 %: 128 scattered 4-byte stores per thread
// cost more than the wait they remove.
// Where the 512 time goes (call 11, ncu source counters at 32x16x512x128 non-causal): the largest
// stall line is the consumers' wait for the next tile's Q (bar_q, 7.5 % of the samples), then the
// S and P·V waits (WARPGROUP.DEPBAR 5.9 / 2.9 / 2.6 %). Loading the next tile's Q a tile earlier
// (claimed and loaded after the current tile's second key tile, non-causal; call 12) measured
// -1 to -2 % at 512-2,048 and -11 % at 4x16x8192, with causal rows (unchanged logic) -3 to -5 %:
// the producer's extra state at its 24 registers. Next: the same without growing the producer.
//
// Session 18 (results/nvidia-h100-80gb-hbm3/session18/, H100 SXM, bf16, 5 + 30 launches, A/B
// against the session-17 binary in one call each, TFLOP/s medians):
//   - Head_dim 256 hands Q back and reloads it by halves, one per consumer warpgroup (kSplitQ:
//     the half's own bar_q and q_empty, 64-row Q boxes, work slot i % 2), so the first
//     warpgroup's next Q loads while the second still runs its last P·V and epilogue. Call 4,
//     three rounds: 32x16x512 500.2 -> 504.7, causal 318.6 -> 321.1; 16x16x1024 647.6 -> 652.7,
//     482.8 -> 488.2; 8x16x2048 level non-causal, causal 610.3 -> 624.8; 4,096 and 8,192 within
//     the rounds' spread; call 5 (this code: the producer's two half loads unrolled, which took
//     away a 16-byte producer spill) the same within 0.5 %. +1 %: the wait it removes is only
//     the second warpgroup's lag. Call 3 ran the same change 3-10 % slower at every length:
//     each warpgroup's whole Q buffer view (not just its two barrier addresses) was derived from
//     the per-thread warpgroup index, so the operand descriptors left the uniform registers.
//   - Where the time goes at 512 (call 6: clock64 stamps per CTA, tile and phase of one launch,
//     session18/call6/, the instrumented build's patch beside them). 32x16x512x128, 141 us: each
//     CTA's first Q lands 3.8 us after its start (2.7 % of the kernel), 2.8 % of the SM time is
//     the last round's idle SMs, and a tile of 8.6 us spends 4.9 us in its 3 overlapped key
//     steps (1.65 us each, 1.79 us per 160 keys at 4x16x8192) and the rest at its ends: first
//     batch 1.3, last batch 0.46, epilogue 1.2, and the first warpgroup's wait for the next Q 0.57
//     (mean; it is issued ~1.8 us ahead of its 1.6-2.7 us latency). Calls 1 and 2 (below) removed
//     that wait without gaining, so the ends' cost is the ping-pong chain through the epilogues,
//     not Q. 32x16x512x256, 272 us: both warpgroups wait 2.2-2.6 us of a 16.7 us tile for the
//     next Q, which with one buffer loads only after the epilogue (the producer waits 2.4 us on
//     q_empty) — hence the next change.
//   - Head_dim 256 up to 512 keys (1,024 causal; kShortRows): a 64-key tile (Q 64 KB + 2 x (32 + 32)
//     KB) whose 32 KB of spare shared memory stages O (kOStaged), so each Q half is handed back
//     once its warpgroup's last S has landed and the next tile's Q loads under the last P·V and
//     the epilogue. The warpgroups take the staging buffer in turn (stage_bar, all 128 threads
//     arriving after a second epilogue barrier: one arrival by the leader is a race to
//     racecheck, call 7), and read their coordinates before the hand-back (the producer rewrites
//     the work slot once q_empty completes: call 7's split-KV causal GPU tests failed without).
//     Call 8, one binary, tiles by flag, two rounds, 80 -> 64 staged: 32x16x512 502.1 -> 516.3,
//     causal 319.1 -> 339.7; 16x16x1024 644.9 -> 624.7 (not taken), causal 480.9 -> 494.8; call
//     7 (three rounds): 2,048 and 4,096 -3 to -5 % (the 64-key S reads more shared memory per
//     FLOP, wgmma_traits.cuh).
//   Measured and not kept (the code is in session18/call*/):
//   - Call 1: the producer split in two, warp 1 claiming tiles and loading their Q a whole tile
//     ahead (as soon as the buffer is free; causal: once the K/V thread has 2 K tiles of the
//     current tile left), thread 0 issuing K and V only, two rounds: head_dim 128 at 512 level
//     (499.4 -> 498.2, causal 339.7 -> 337.1), 1,024-2,048 +1-1.5 %, head_dim 64 level, head_dim
//     256 -1 to -3.5 % (its one Q buffer then gated the next tile's K(0) on the epilogue). So the
//     512 wait call 11 found at bar_q is not the Q load's latency.
//   - Call 2: the tile boundary as one batch — a tile's last P·V and the next tile's S(0) under
//     one token turn, the epilogue while S(0) runs, then softmax(0) (two Q buffers): head_dim 128
//     -3 to -7 % (512 498 -> 464, causal 340 -> 317), head_dim 64 level to -3 %: the epilogue
//     now sits between the warpgroup's P·V and its next softmax, and the other warpgroup waits
//     for the token through it. (Its split-KV causal tiles with no key tiles also moved the ring:
//     2 GPU-test failures; the A/B shapes checked clean.)
//
// Session 19 (results/nvidia-h100-80gb-hbm3/session19/, H100 SXM, no kernel change): in steady state
// (every row of both sides warmed up 3 s, call 8) this rung runs at the 700 W cap 1,550 MHz where
// cuDNN runs 1,810 and FA4 1,910 at 32x16x512x128: 459 TFLOP/s against 537 / 469 (0.86x the best,
// against 0.93x in call 2's bursts at 1,980 MHz on both sides), 657 GFLOP per joule against cuDNN's
// 790. At the cap the ranking is energy per launch; the counters to start from are session 16's
// (17.1 M L2 sectors read against cuDNN's 12.3 M for the same DRAM bytes, and more mbarrier spinning).
//
// Session 20 (results/nvidia-h100-80gb-hbm3/session20/, H100 SXM; steady state = 3 s warm-up, >= 1 s
// timed, energy per launch from NVML; two rounds, order alternating):
//   - Where the energy goes at 32x16x512x128 (call 1, diagnostic builds, outputs wrong by design,
//     session20/diag.patch): this rung 449 TFLOP/s, 1,509 MHz, 108.1 mJ a launch; each ring slot
//     loaded only on its first use (no K/V reloads) 514 / 1,654 / 94.4; Q loaded only into each
//     buffer's first use 475 / 1,570 / 102.2; no TMA store of O 477 / 1,520 / 101.2; all three
//     599 / 1,738 / 80.9. cuDNN, same call, with all its traffic: 534 / 1,949 MHz / 73.3 mJ (597 W,
//     where this rung sits at the 700 W cap). At 1x16x16384 the K/V reloads cost 6 % (2,298 ->
//     2,156 mJ) and this rung spends less than cuDNN (2,467). So at 512 a quarter of the time and
//     energy goes with the memory traffic (14 % K/V from L2, 6 % each Q and O from DRAM), which
//     cuDNN carries for less; and even without it, 849 GFLOP/J against cuDNN's 937 with it.
//   - Measured and not kept (session20/pairs.patch, call 2): non-causal pairs of consecutive
//     tiles on one CTA, the second visiting its keys rotated so that it starts on the K/V tiles
//     the first left in the ring (2 of 4 at 512: 25 % fewer K/V loads), the first tile holding
//     back their release. GPU tests (a new case with enough tiles to pair) and the three
//     sanitizers passed, but 5 + 30 launches: d128 512 497.7 -> 469.1, 1,024 597.8 -> 575.8, 2,048
//     -3.6 %, 4,096 -3.3 %, d64 -2 to -4 %, and causal rows (never paired) -1 to -4 %: the
//     consumers' per-tile release test and key rotation cost ptxas' schedule more than the
//     saved loads buy; steady state d128 512 111.5 -> 115.1 mJ. And head_dim 128 at 3 stages,
//     which leaves one Q buffer and so takes head_dim 256's split-Q path (call 3): 512 -3.6 %,
//     causal -14.5 %, 1,024 -2.8 % / -8.4 % (session20/three_stages.patch): the second Q buffer
//     is worth more than a deeper ring.
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; regs entry/producer/consumer as rung 7; the short
// causal head_dim-64 128 x 128 tile: 4 stages, 162 KiB, no spills, 168 registers; the 160-key
// head_dim-128 tile: 2 stages, 226 KiB, no spills; the staged 64-key head_dim-256 tile: 2 stages
// and the O buffer, 226 KiB, no spills): no spills at any head_dim (d256 spilled 28 bytes outside
// the tile loop until session 11's uniform index).
//
// Session 22 (session22/ call 8, H100 SXM, bf16, default timing rule, two rounds): the lazy row max
// at head_dim 256 (07_wgmma_overlap.cu's header), both tiles: 512 479.4 -> 494.4, causal 321.5 ->
// 329.1; 1,024 571.8 -> 585.1, 441.6 -> 461.0; 2,048 631.0 -> 647.0, 538.7 -> 554.2; 4,096 686.0 ->
// 704.3, 648.6 -> 669.1; 8,192 724.1 -> 745.7, 692.6 -> 724.2; 16,384 739.8 -> 759.6, 727.3 ->
// 748.5 (+2.3 to +4.6 %).
//
// Session 30 (results/nvidia-h100-80gb-hbm3/session30/): the tail split (fa/splitkv.h, rung 8's
// since session 27). Where the non-causal grid's last round of tiles is at most half full, its
// tiles are handed out as 2-4 key chunks each after the whole tiles (kTailSplit, tail_work_coords)
// and the last chunk of a tile to finish merges them (device/tail_merge.cuh); a second build of
// the kernel, so that problems without a split run this one unchanged (SASS-identical but for a
// global's constant-bank offset). The merge's flag sits in the warpgroup's own Q rows (staged
// tile: in the O staging buffer, its own by then). Call 1 (H100 SXM, default timing rule, two
// rounds, against the build without it): 4x16x8192x128 (4,096 tiles: 31 rounds and 4 tiles, 4
// chunks each) 644.2 -> 665.0 TFLOP/s; 4x32x4096x64 (2,816 tiles of 192 rows: 44 x 3) 478.6 ->
// 499.5; 8x32x2048x64 (44 x 2) 463.7 -> 478.6; 2x16x8192x128 (no split) level. The tail build
// spills 12 B at head_dim 256 (32 B on the staged tile) outside the key loop, whose instructions
// are the plain build's plus one.

// Session 31 (results/nvidia-h100-80gb-hbm3/session31/): the running max from the most negative
// finite float (online_softmax.cuh's kRowMaxStart; rung 7's header has the instructions it drops).
// H100 SXM, default timing rule, two rounds each, against 416ae70, calls 1 / 2: 2x32x8192x64 526.8
// -> 534.7 / 522.2 -> 530.1, causal 492.1 -> 499.1 / 490.1 -> 494.5; 1x32x16384x64 533.1 -> 542.1 /
// 529.0 -> 534.9, causal 508.7 -> 515.2 (call 2); 4x32x4096x64 503.9 -> 515.0 (call 2); the 160-key
// head_dim-128 tile 4x16x8192 668.5 -> 668.5 / 668.4 -> 676.0; head_dim 256 level (745.0 -> 748.2,
// causal 720.3 -> 721.2). The 128-key head_dim-128 tile (PersistentD128, this rung's causal one at
// long rows) measured -1.2 % causal in both calls (4x16x8192 626.9 -> 618.9 / 626.6 -> 618.8,
// 1x16x16384 652.1 -> 644.2) with its loop scheduled anew, so it keeps the -inf start and its
// guards (kNegInfStart; its SASS is 416ae70's).
//
// Session 33 (results/nvidia-h100-80gb-hbm3/session33/): rung 7's unmasked key loop at head_dim 64
// (rung 7's header; overlap_schedule.cuh) on the 192 x 128 tile. Call 3 (H100 SXM, default timing
// rule, three rounds, against the one loop): 1x32x16384x64 539.6 -> 548.1, 2x32x8192x64 534.8 ->
// 543.0, 4x32x4096x64 516.9 -> 521.8, causal 498.2 -> 497.3; the short causal tile keeps one loop
// (WgmmaWsD64Short: 32x32x512x64 causal 250.4 -> 247.0 with it). Call 4c, issue #10's grid with FA4
// and cuDNN: 1x32x16384x64 550.0 against FA4's 554.3 (0.992; session 31: 0.969), 2x32x8192x64
// 543.7 against 543.0.
//
// Session 36 (results/nvidia-h200/session36/, an H200): the 128-key head_dim-128 tile (PersistentD128,
// this rung's causal tile from 2,048 rows on) computes every exponent's argument before the P·V wait
// (online_softmax_tile's kArgsFirst), the split FA4's sm90 loop has (its SASS, compiled without a GPU:
// scripts/fa4_sass.py): all 64 FFMAs of a trip in the block before the midpoint's wait, only MUFU,
// the row sum, O's rescale and the packing after it, the same instructions. Call E (three rounds,
// against the committed build; GPU tests and compute-sanitizer on that build): causal +0.6 to +1.5 %
// (PersistentD128's comment has the rows). Not yet measured on the H100 or with the peers in the grid.
// On the 160-key tile the same change measured -0.4 to -3.7 % non-causal and at head_dim 64 -0.8 to
// -1.5 %, so those tiles keep the fused FFMA + MUFU.

#include <cstdint>
#include <vector>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/launch.cuh"
#include "device/overlap_schedule.cuh"
#include "device/ptx.cuh"
#include "device/tail_merge.cuh"
#include "device/wgmma_steps.cuh"
#include "device/wgmma_traits.cuh"
#include "device/wgmma_ws_kernel.cuh"
#include "fa/problem.h"
#include "fa/registry.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Rung 7's tile (Config) plus, after the ring's release barriers: q_empty[2], bar_q for the second
// Q buffer, the work slots of both buffers, and the second Q buffer itself where shared memory
// holds it (kQBuffers = 2), so that tile i+1's Q loads while tile i runs.
template <class Config>
struct PersistentTraits : wgmma::WsTraits<Config> {
    using Ws = wgmma::WsTraits<Config>;
    static constexpr int kOffQEmpty = Ws::kOffRelease + 16 * Ws::kStages;  // after k_empty, v_empty
    static constexpr int kOffBarQ1 = kOffQEmpty + 16;
    static constexpr int kOffStageBar = kOffBarQ1 + 8;  // kOStaged: the O staging buffer's turn (below)
    // Two work slots of kWorkBytes: a tile's BlockCoords, decoded once by the producer.
    static constexpr int kWorkBytes = 32;
    static constexpr int kOffWork = (kOffStageBar + 8 + 15) / 16 * 16;  // 16-byte aligned: v4 accesses
    static constexpr int kOffQ1 = (kOffWork + 2 * kWorkBytes + 1023) / 1024 * 1024;
    static constexpr bool kDoubleQ = kOffQ1 + Ws::kQBytes + Ws::kAlignSlack <= 227 * 1024;
    static constexpr int kQBuffers = kDoubleQ ? 2 : 1;
    // One Q buffer (head_dim 256): its halves, one per consumer warpgroup, are handed back and
    // reloaded apart (bar_q / q_empty per half: the second Q buffer's barriers), so the first
    // warpgroup's next Q loads while the second still runs its last P·V and epilogue; the TMA
    // boxes of Q are then one warpgroup's 64 rows (launch_tma_fwd).
    static constexpr bool kSplitQ = !kDoubleQ;
    static constexpr int kQBoxRows = kSplitQ ? Ws::kWarpgroupRows : Ws::kBlockM;
    static_assert(!kSplitQ || Ws::kConsumerWarpgroups == 2, "a Q half per consumer warpgroup");
    // One Q buffer and room for one warpgroup's O (the 64-key head_dim-256 tile: 192 KB of Q and
    // ring leave 32 KB): O is staged there, not in Q, so each Q half is handed back as soon as
    // its warpgroup's last S has landed and the next tile's Q loads under the last P·V and the
    // epilogue. The warpgroups take the buffer in turn (stage_bar: the 128 threads of the
    // warpgroup that used it arrive once its leader's TMA store has read the rows).
    static constexpr int kStageBytes = Ws::kChunks * Ws::kWarpgroupRows * 128;
    static constexpr int kOffStage = (kOffWork + 2 * kWorkBytes + 1023) / 1024 * 1024;
    static constexpr bool kOStaged = kSplitQ && kOffStage + kStageBytes + Ws::kAlignSlack <= 227 * 1024;
    static constexpr int kSmemBytes =
        (kDoubleQ ? kOffQ1 + Ws::kQBytes : kOStaged ? kOffStage + kStageBytes : kOffWork + 2 * kWorkBytes) +
        Ws::kAlignSlack;
    static_assert(sizeof(BlockCoords) == kWorkBytes, "a work slot holds one BlockCoords");
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
};

// Rung 9's tiles: rung 7's, except head_dim 128 with a 2-stage ring, so that a second Q buffer
// fits (Q 2 x 32 KB + 2 x (K 32 KB + V 32 KB) = 192 KB; with 3 stages 256 KB would not); long
// non-causal rows take rung 7's 160-key tile as it is (2 stages: both Q buffers fit in 224 KB;
// kLongNonCausal below). Head_dim 64 keeps 4 stages (2 x 24 KB + 4 x 32 KB = 176 KB); head_dim
// 256 has one Q buffer (2 x 64 KB + 2 x 80 KB does not fit), so each half of its next Q waits for
// that half's epilogue (kSplitQ).
template <typename T>
struct PersistentD128 : wgmma::WgmmaWsD128<T> {
    static constexpr int kStages = 2;
    // The running max from -inf with its guards, as before session 31: without them ptxas scheduled
    // this tile's loop anew and it measured -1.2 % causal at 4x16x8192x128 and 1x16x16384x128, in
    // two calls (session 31 calls 1-2; wgmma_steps.cuh's online_softmax_tile has the rest). With
    // kExpArgsFirst below, the finite start measured level: 1.0027x and 1.0035x in two calls (session
    // 37 calls C and E, an H200, three rounds; causal 4x16x4096 +1.8 %, 8x16x2048 -1.4 %).
    static constexpr bool kNegInfStart = true;
    // The exponents' arguments before the P·V wait, as FA4's loop has them (online_softmax_tile's
    // kArgsFirst; session 36 call E, an H200, three rounds): causal 1x16x16384 622.4 -> 626.1,
    // 2x16x8192 594.8 -> 603.6, 4x16x4096 551.0 -> 558.7, 8x16x2048 494.8 -> 498.0 TFLOP/s (+0.6 to
    // +1.5 %). On the 160-key tile (rungs 7 and 9 non-causal) the same change measured -0.4 to -3.7 %.
    static constexpr bool kExpArgsFirst = true;
};

// Head_dim 256 with 64-key tiles (Q 64 KB + 2 x (K 32 + V 32) KB = 192 KB): room for O's staging
// buffer, so Q is handed back before the epilogue (PersistentTraits::kOStaged).
template <typename T>
struct PersistentD256Staged : wgmma::WgmmaWsD256<T> {
    static constexpr int kBlockN = 64;
    static constexpr int kPvWaitColumn = kBlockN;
};

// [0]: tiles handed out after the first gridDim.x; [1]: CTAs done fetching (see the header).
__device__ int work_counter[2];

// The producer's next tile: the first gridDim.x are the CTAs' own, the rest come from the counter.
__device__ __forceinline__ int next_work() { return atomicAdd(&work_counter[0], 1) + static_cast<int>(gridDim.x); }

// Tile w of the n_work = fwd_grid's x · y (x fastest: row blocks of one head slot, then slots,
// batch; y = split).
template <class Tr>
__device__ __forceinline__ BlockCoords work_coords(const FwdParams& p, int w) {
    const int grid_x = fwd_grid_tiles(p, Tr::kBlockM);
    return BlockCoords(p, Tr::kBlockM, Tr::kBlockN, w % grid_x, w / grid_x);
}

// The tail split (fa/splitkv.h; kTailSplit, the kernel's second build): the work list is fwd_grid's
// unsplit tiles, then the tail_tiles split tiles' tail_splits key chunks each (TailChunk order), so
// the chunks are the last work handed out and fill the SMs the last round of whole tiles leaves
// idle. A chunk's coordinates carry split = 1 + its TailChunk index (0 for a whole tile: split-KV is
// off with a tail split), which the consumers' epilogue reads from the work slot. The list's length:
// tail_work_items (block_info.cuh).
template <class Tr>
__device__ __forceinline__ BlockCoords tail_work_coords(const FwdParams& p, int w) {
    const int whole = fwd_grid_tiles(p, Tr::kBlockM) - p.tail_tiles;
    if (w < whole) return BlockCoords(p, Tr::kBlockM, Tr::kBlockN, w, 0);
    BlockCoords blk = tail_chunk_coords(p, Tr::kBlockM, Tr::kBlockN, tail_chunk(p, Tr::kBlockM, w - whole));
    blk.split = 1 + w - whole;
    return blk;
}

// The CTA's i-th tile uses Q buffer i % kQBuffers: its shared memory as rung 7's layout sees it
// (q and bar_q replaced), its q_empty barrier and work slot, and the parity of that buffer's use.
// With kSplitQ, `half` picks that half's bar_q and q_empty (for the producer's loads: a consumer
// takes only those two addresses, see its loop), and the work slot is i % 2: the producer writes
// tile i's while the second warpgroup may still read tile i - 1's.
template <class Tr>
struct QBuffer {
    wgmma::CtaSmem<Tr> sm;
    uint32_t q_empty, work;
    uint32_t parity;

    __device__ __forceinline__ QBuffer(const wgmma::CtaSmem<Tr>& base, int i, int half = 0) : sm(base) {
        const int b = Tr::kSplitQ ? half : i % Tr::kQBuffers;
        if (b == 1) {
            if (!Tr::kSplitQ) sm.q = base.base + Tr::kOffQ1;
            sm.bar_q = base.base + Tr::kOffBarQ1;
        }
        q_empty = base.base + Tr::kOffQEmpty + 8 * b;
        work = base.base + Tr::kOffWork + Tr::kWorkBytes * (Tr::kSplitQ ? i & 1 : b);
        parity = static_cast<uint32_t>((i / Tr::kQBuffers) & 1);
    }
};

// A work slot: the tile's BlockCoords as the producer decoded them, m_start = -1 for "no more
// tiles". The consumers read the slot instead of decoding the tile index themselves: the decode
// (work_coords, BlockInfo) is about seven integer divisions of ~20 instructions each, which every
// consumer thread ran twice per tile (again for the epilogue) — 0.43 M IABS, ~8 % of the kernel's
// instructions at 32x16x512x128 (ncu, session 16 call 3), on the path from bar_q to a tile's
// first wgmma.
__device__ __forceinline__ void store_work(uint32_t slot, const BlockCoords& b) {
    ptx::st_shared_v4_b32(slot, make_uint4(static_cast<uint32_t>(b.m_start), static_cast<uint32_t>(b.head),
                                           static_cast<uint32_t>(b.head_kv), static_cast<uint32_t>(b.q_slot)));
    ptx::st_shared_v4_b32(slot + 16, make_uint4(static_cast<uint32_t>(b.batch), static_cast<uint32_t>(b.split),
                                                static_cast<uint32_t>(b.key_tile_begin),
                                                static_cast<uint32_t>(b.key_tile_end)));
}
__device__ __forceinline__ BlockCoords load_work(uint32_t slot) {
    const uint4 a = ptx::ld_shared_v4_b32(slot);
    const uint4 c = ptx::ld_shared_v4_b32(slot + 16);
    BlockCoords b;
    b.m_start = static_cast<int>(a.x);
    b.head = static_cast<int>(a.y);
    b.head_kv = static_cast<int>(a.z);
    b.q_slot = static_cast<int>(a.w);
    b.batch = static_cast<int>(c.x);
    b.split = static_cast<int>(c.y);
    b.key_tile_begin = static_cast<int>(c.z);
    b.key_tile_end = static_cast<int>(c.w);
    return b;
}

// kTailSplit: the build that runs a tail split's work list (tail_work_coords) and merges a split
// tile's chunks in the epilogue (device/tail_merge.cuh); a build of its own, as rungs 7's and 8's,
// so that every problem without a split runs the kernel as measured before it.
template <class Tr, bool kTailSplit = false>
__global__ void __launch_bounds__(Tr::kLaunchThreads, 1)
    wgmma_persistent_fwd_kernel(const FwdParams p, const __grid_constant__ CUtensorMap tm_q,
                                const __grid_constant__ CUtensorMap tm_k, const __grid_constant__ CUtensorMap tm_v,
                                const __grid_constant__ CUtensorMap tm_o) {
#if FA_HOPPER_ENABLED
    ptx::launch_dependent_grids();  // split-KV: the combine may be scheduled now
    extern __shared__ unsigned char smem_raw[];
    const wgmma::CtaSmem<Tr> sm(smem_raw);
    const int tid = threadIdx.x;

    if (tid == 0) {
        sm.init_full_barriers();  // bar_q (buffer 0), k_full, v_full
        ptx::mbarrier_init(sm.base + Tr::kOffBarQ1, 1);
#pragma unroll
        for (int s = 0; s < 2 * Tr::kStages; ++s) ptx::mbarrier_init(sm.release + 8 * s, Tr::kConsumerWarps);
        // q_empty: every consumer thread arrives (see the consumers' end of a tile); with kSplitQ
        // each half's barrier counts its warpgroup's 128.
        ptx::mbarrier_init(sm.base + Tr::kOffQEmpty, Tr::kSplitQ ? 128 : Tr::kNThreads);
        ptx::mbarrier_init(sm.base + Tr::kOffQEmpty + 8, Tr::kSplitQ ? 128 : Tr::kNThreads);
        if (Tr::kOStaged) ptx::mbarrier_init(sm.base + Tr::kOffStageBar, 128);
        hopper::fence_mbarrier_init();
    }
    __syncthreads();

    if (tid < 128) {
        // ---- Producer warpgroup: thread 0 loads every tile's Q, K and V ----
        hopper::setmaxnreg_dec<Tr::kProducerRegs>();
        if (tid == 0) {
            const int n_work = kTailSplit ? tail_work_items(p, Tr::kBlockM)
                                          : fwd_grid_tiles(p, Tr::kBlockM) * (p.num_splits > 1 ? p.num_splits : 1);
            int g = 0;  // key tiles loaded so far (ring position)
            int i = 0;  // tiles whose Q was loaded
#pragma unroll 1
            for (int w = blockIdx.x; w < n_work; w = next_work(), ++i) {
                const BlockCoords blk = kTailSplit ? tail_work_coords<Tr>(p, w) : work_coords<Tr>(p, w);
                const int n_tiles = max(blk.key_tiles(), 0);
                wgmma::produce_tile<Tr>(sm, &tm_k, &tm_v, blk, n_tiles, g, [&] {
                    // The buffer held tile i - kQBuffers's Q, then its O until the TMA store read it.
                    const QBuffer<Tr> qb(sm, i);
                    if constexpr (Tr::kSplitQ) {
                        // Slot i % 2 held tile i - 2's coordinates, read before the q_empty
                        // arrivals this thread waited for at tile i - 1.
                        store_work(qb.work, blk);
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            const QBuffer<Tr> qh(sm, i, h);
                            if (i >= 1) ptx::mbarrier_wait_parity(qh.q_empty, qh.parity ^ 1u);
                            wgmma::load_q<Tr>(qh.sm, &tm_q, blk, p, h);
                        }
                    } else {
                        if (i >= Tr::kQBuffers) ptx::mbarrier_wait_parity(qb.q_empty, qb.parity ^ 1u);
                        store_work(qb.work, blk);
                        wgmma::load_q<Tr>(qb.sm, &tm_q, blk, p);
                    }
                });
                g += n_tiles;
            }
            BlockCoords none;
            none.m_start = -1;  // no more tiles
#pragma unroll 1
            for (int h = 0; h < (Tr::kSplitQ ? 2 : 1); ++h) {
                const QBuffer<Tr> qb(sm, i, h);
                if (i >= Tr::kQBuffers) ptx::mbarrier_wait_parity(qb.q_empty, qb.parity ^ 1u);
                if (h == 0) store_work(qb.work, none);
                ptx::mbarrier_arrive(qb.sm.bar_q);
            }
            // The last CTA done fetching resets the counter for the next launch.
            if (atomicAdd(&work_counter[1], 1) == static_cast<int>(gridDim.x) - 1) {
                atomicExch(&work_counter[0], 0);
                atomicExch(&work_counter[1], 0);
            }
        }
    } else {
        // ---- Consumer warpgroups: rung 7's schedule on each tile the producer hands out ----
        hopper::setmaxnreg_inc<Tr::kConsumerRegs>();
        int ring = 0;          // key tiles consumed so far (ring position of the next K(0))
        bool started = false;  // the issue token circulates (started by the first tile with key tiles)
#pragma unroll 1
        for (int i = 0;; ++i) {
            const QBuffer<Tr> qb(sm, i);
            // kSplitQ: this warpgroup's half's bar_q and q_empty (the second's are the second Q
            // buffer's barriers). Only these two addresses depend on the warpgroup: qb.sm, from
            // which the operand descriptors derive, stays uniform. (Taken from a second QBuffer
            // of the half, they change ptxas' head_dim-256 schedule: 513 SASS lines, not measured.)
            const int half = Tr::kSplitQ ? hopper::warp_uniform((tid - 128) / 128) : 0;
            const uint32_t bar_q = half == 1 ? sm.base + Tr::kOffBarQ1 : qb.sm.bar_q;
            const uint32_t q_empty = half == 1 ? sm.base + Tr::kOffQEmpty + 8 : qb.q_empty;
            ptx::mbarrier_wait_parity(bar_q, qb.parity);
            const BlockCoords blk = load_work(qb.work);
            if (blk.m_start < 0) {
                // The last warpgroup's pass after its last batch: warpgroup 0 takes it, so every
                // named barrier ends with as many syncs as arrivals.
                const wgmma::ConsumerThread<Tr> ct(tid - 128);
                if (started && ct.wg == 0) hopper::named_barrier_sync(Tr::kSchedBar, 256);
                break;
            }
            // The token is kept between tiles: warpgroup 0 may start tile i+1 while the last
            // warpgroup still runs its epilogue of tile i.
            const wgmma::WsConsumer<Tr> c(qb.sm, p, blk, tid - 128, ring, started, true);

            float o[Tr::kAccO];
#pragma unroll
            for (int k = 0; k < Tr::kAccO; ++k) o[k] = 0.0f;
            float row_max[2] = {wgmma::row_max_start<Tr>(), wgmma::row_max_start<Tr>()};
            float row_sum[2] = {0.0f, 0.0f};
            float s[Tr::kAccS];
            uint32_t pa[Tr::kKStepsPV * 4];
            float rescale[2];
            const wgmma::ConsumerRegs<Tr> r{o, row_max, row_sum, s, pa, rescale};

            const int n_tiles = c.n_tiles;
            // kOStaged: once this warpgroup's last S has landed (run() waited for it) its Q half is
            // dead and handed back, before the last P·V and the epilogue; the work slot is read
            // first, since the producer may rewrite it once q_empty completes.
            BlockCoords out;
            auto hand_back_q = [&] {
                if constexpr (Tr::kOStaged) {
                    out = load_work(qb.work);
                    ptx::mbarrier_arrive(q_empty);
                }
            };
            if (n_tiles > 0) {
                wgmma::first_batch<Tr>(c, r);
                const int last_stage = wgmma::OverlapSchedule::run<Tr>(c, r);
                hand_back_q();
                wgmma::last_batch<Tr>(c, r, last_stage);
                ring += n_tiles;
                started = true;
            } else {
                hand_back_q();
            }
            if constexpr (Tr::kOStaged) {
                // The staging buffer's k-th use (k = 2i + warpgroup: the warpgroups alternate)
                // waits for use k - 1 to end: every thread of that warpgroup arrives (count 128)
                // once its leader's TMA store has read the rows (the second epilogue barrier).
                const int k = 2 * i + half;
                if (k > 0) ptx::mbarrier_wait_parity(sm.base + Tr::kOffStageBar, static_cast<uint32_t>((k - 1) & 1));
                // A split tile's chunk (kTailSplit): the merge's flag in the staging buffer, this
                // warpgroup's now; a chunk that does not store still ends the buffer's use.
                bool store = true;
                if constexpr (kTailSplit)
                    if (out.split > 0)
                        store = merge_tail<Tr>(o, row_max, row_sum, c.wg, tid - 128, sm.base + Tr::kOffStage, p,
                                               out.split - 1);
                if (store)
                    wgmma::write_output<Tr, true>(o, row_sum, row_max, c, qb.sm, &tm_o, p, out,
                                                  sm.base + Tr::kOffStage);
                hopper::named_barrier_sync(Tr::kEpilogueBar + half, 128);
                ptx::mbarrier_arrive(sm.base + Tr::kOffStageBar);
                continue;  // q_empty was arrived on above
            }
            // The coordinates read again, so that none of them is held through the main loop.
            if constexpr (kTailSplit) {
                // A split tile's chunk: the merge's flag in this warpgroup's own Q rows of the
                // buffer (dead now; only its store of O writes them next).
                const BlockCoords out = load_work(qb.work);
                if (out.split == 0 || merge_tail<Tr>(o, row_max, row_sum, c.wg, tid - 128,
                                                     qb.sm.q + c.wg * Tr::kWarpgroupRows * 128, p, out.split - 1))
                    wgmma::write_output<Tr>(o, row_sum, row_max, c, qb.sm, &tm_o, p, out);
            } else {
                wgmma::write_output<Tr>(o, row_sum, row_max, c, qb.sm, &tm_o, p, load_work(qb.work));
            }
            // Every thread arrives, after its own last read of the buffer and the work slot (the
            // warpgroup leader after its TMA store read the O rows). One arrival per warp after
            // __syncwarp, as for the ring slots, is flagged by compute-sanitizer's racecheck at
            // head_dim 256 (the other 31 lanes' work-slot reads against the producer's next write;
            // one Q buffer leaves no other barrier between them): 240 hazards, session 8 call 5.
            ptx::mbarrier_arrive(q_empty);
        }
    }
#endif  // FA_HOPPER_ENABLED
}

// One CTA per SM (each holds ~225 KiB of shared memory, so one fits), never more than tiles.
template <class Tr>
cudaError_t launch_wgmma_persistent(const FwdParams& p, cudaStream_t stream) {
    int device = 0, sms = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
        return e;
    if (!tail_split_runnable(p)) return cudaErrorInvalidValue;
    const bool tail = p.tail_tiles > 0;  // the kernel's build for the tail split's work list
    const dim3 tiles = fwd_grid(p, Tr::kBlockM);
    const long long n_work = tail ? tail_work_items(p, Tr::kBlockM) : static_cast<long long>(tiles.x) * tiles.y;
    const dim3 grid(static_cast<unsigned>(n_work < sms ? n_work : sms));
    auto* const kernel = tail ? wgmma_persistent_fwd_kernel<Tr, true> : wgmma_persistent_fwd_kernel<Tr>;
    return launch_tma_fwd<Tr, Tr::kLaunchThreads>(kernel, p, stream, &grid);
}

template <class Config>
KernelInstance persistent_instance(DefaultRule rule = {}) {
    using Tr = PersistentTraits<Config>;
    return instance_of<Tr>(reinterpret_cast<const void*>(&wgmma_persistent_fwd_kernel<Tr>),
                           &launch_wgmma_persistent<Tr>, Tr::kNThreads, rule);
}

// Where the head_dim-64 128 x 128 tile (WgmmaWsD64Short) replaces the 192-row one: causal, at most
// 1,024 query and key rows. H100, bf16, 16k tokens x 32 heads, 5 + 30 launches, TFLOP/s, two
// rounds of session 9 call 4 (192 rows -> 128 rows): causal S = 512 196 / 196 -> 219 / 217,
// 1024 261 / 258 -> 293 / 294, 2048 370 / 368 -> 358 / 355, 4096 and longer 5-12 % slower;
// non-causal slower at every S (306 -> 286 at 512, 507 -> 439 at 16384): the 192-row tile reads
// each K/V tile for 1.5x the rows. cuDNN in the same call: 265 / 345 at 512 / 1024 causal.
bool short_causal(const KernelInfo&, const KernelInstance&, const ProblemShape& p) {
    return p.causal && p.seqlen_q <= 1024 && p.seqlen_k <= 1024;
}
constexpr DefaultRule kShortCausal{&short_causal, "causal, seqlen_q and seqlen_k <= 1024"};

// Where the 160-key head_dim-128 tile replaces the 128-key one: non-causal, at least 2,048 query and
// key rows (session 17 call 5). Again with the 128-key tile's exponent arguments first (session 37
// call C, an H200, three rounds, 128 -> 160 keys): 2x16x8192 613.8 -> 634.5, 1x16x16384 625.2 ->
// 648.9, 4x16x4096 595.7 -> 618.8, 4x16x8192 623.9 -> 642.9.
bool long_non_causal(const KernelInfo&, const KernelInstance&, const ProblemShape& p) {
    return !p.causal && p.seqlen_q >= 2048 && p.seqlen_k >= 2048;
}
constexpr DefaultRule kLongNonCausal{&long_non_causal, "non-causal, seqlen_q and seqlen_k >= 2048"};

// Where the staged 64-key head_dim-256 tile (PersistentD256Staged) replaces the 80-key one: at most
// 1,024 query rows and 512 keys, 1,024 when causal. Session 18 call 8 (H100 SXM, bf16, 80 -> 64
// staged, TFLOP/s): 32x16x512 502.1 -> 516.3, causal 319.1 -> 339.7; 16x16x1024 644.9 -> 624.7,
// causal 480.9 -> 494.8; call 7: 2,048 and 4,096 keys -3 to -5 %.
bool short_rows(const KernelInfo&, const KernelInstance&, const ProblemShape& p) {
    return p.seqlen_q <= 1024 && p.seqlen_k <= (p.causal ? 1024 : 512);
}
constexpr DefaultRule kShortRows{&short_rows, "seqlen_q <= 1024 and seqlen_k <= 512 (causal: 1024)"};

}  // namespace

const std::vector<KernelInstance>& wgmma_persistent_instances() {
    static const std::vector<KernelInstance> instances = {
        persistent_instance<PersistentD128<__nv_bfloat16>>(),
        persistent_instance<wgmma::WgmmaWsD64<__nv_bfloat16>>(),
        persistent_instance<PersistentD128<__half>>(),
        persistent_instance<wgmma::WgmmaWsD64<__half>>(),
        persistent_instance<wgmma::WgmmaWsD256<__nv_bfloat16>>(),
        persistent_instance<wgmma::WgmmaWsD256<__half>>(),
        persistent_instance<wgmma::WgmmaWsD64Short<__nv_bfloat16>>(kShortCausal),
        persistent_instance<wgmma::WgmmaWsD64Short<__half>>(kShortCausal),
        persistent_instance<wgmma::WgmmaWsD128Wide<__nv_bfloat16>>(kLongNonCausal),
        persistent_instance<wgmma::WgmmaWsD128Wide<__half>>(kLongNonCausal),
        persistent_instance<PersistentD256Staged<__nv_bfloat16>>(kShortRows),
        persistent_instance<PersistentD256Staged<__half>>(kShortRows),
    };
    return instances;
}

}  // namespace fa
