// Rung 7 — `wgmma_overlap`: rung 06 (`wgmma_ws`: producer warpgroup, setmaxnreg, ping-pong of the
// consumer warpgroups) plus FA3's intra-warpgroup overlap, i.e. FA3's full recipe. Same tiles,
// TMA maps, ring, register split and TMA-store epilogue as rung 06 (each warpgroup writes its O
// rows into its dead Q rows of shared memory, 128-byte swizzled, one thread TMA-stores them;
// rows >= seqlen_q are clipped by the copy engine).
//
// What changed from rung 06, and why:
//   - Schedule inside a consumer warpgroup. Rung 06 issues one batch, O += P(t)·V(t) then
//     S(t+1) = Q·K(t+1)ᵀ, waits for all of it (wait_group 0), then runs softmax(t+1): its own
//     tensor-core work stops during its softmax, only the other warpgroup's GEMMs fill the gap.
//     Here the batch is S(t+1) first, then O += P(t)·V(t), as two commit groups; the warpgroup
//     waits only for S(t+1) (wait_group 1), computes softmax(t+1) while P(t)·V(t) still runs, and
//     waits for the P·V (wait_group 0) after the softmax. Ping-pong is unchanged: the issue token
//     still orders the warpgroups' batches, so one warpgroup's softmax also overlaps the other's
//     GEMMs. Cost: P(t) (the A fragments) stays live through softmax(t+1): O + S + P registers
//     at once (64 + 64 + 32 at d=128, 32 + 64 + 32 at d=64), inside rung 06's consumer budgets.
//   - Where the full-barrier waits sit. ptxas schedules a wgmma.wait_group (and bar.sync) at the
//     top of its basic block: rung 07's previous version saw wait_group 0 hoisted above the whole
//     softmax, and here the O rescale and P pack sank below the token's bar.sync when they shared
//     a block. Spin loops end basic blocks, so the wait for V(t+1) (needed by batch t+2 anyway)
//     sits between softmax(t+1) and wait_group 0, and the wait for K(t+1) between the rescale /
//     pack and the token's bar.sync. SASS: every MUFU.EX2 of softmax(t+1) lies between
//     WARPGROUP.DEPBAR.LE gsb0 0x1 and gsb0 0x0, and the FMUL / F2FP of the rescale / pack
//     before the loop's BAR.SYNC. Both waits precede the token wait, as in rung 06, and the ring
//     needs only 2 slots (see the kernel's comment); the stage counts stay rung 06's.
//   - Tile rule, threads, tiles, smem: as rung 06. num_threads counts consumer threads (256 at
//     d=128, 384 at d=64); the kernel launches 128 more (the producer warpgroup). d=64 keeps
//     192 x 128 with 3 consumer warpgroups: the overlapped live set (O 32 + S 64 + P 32 fp32/u32
//     + ~25 addresses/statistics) fits the 160-register consumer budget without spills (ptxas
//     below), and three warpgroups keep two softmaxes' worth of work hidden behind the third's
//     GEMMs; 128 x 128 with 2 warpgroups would give 240 registers but 1/3 fewer rows per K/V
//     load (more L2 traffic per FLOP) for no register need we have.
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192): +3-6% over rung 06. FA3's ablation (paper,
// Table 2, d=128) loses 661 -> 582 TFLOP/s without GEMM-softmax pipelining, but rung 06 already
// reaches 659 (its one-batch P·V + S keeps the tensor core fed through the ping-pong), so far less
// is left to win here; the ceiling is cuDNN's 690 / 618. Estimate d=128 ~680-700 non-causal,
// ~610-630 causal; d=64 ~550-565, ~500-515 causal.
//
// History (H100 SXM, bf16, B=2, S=8192, TFLOP/s; cuDNN on the same GPU: d128 690 / 618 causal,
// d64 501 / 436):
//   - rung 05's kernel with the overlapped schedule, before the split into rungs 05/06/07:
//     d128 636 non-causal / 603 causal; d64 519 / 463.
//   - previous rung 07 (rung 05 + intra-warpgroup overlap, no producer warpgroup, no ping-pong):
//     d128 561 / 563 causal; d64 490 / 453 (rung 05 577 / 503, 482 / 429; rung 06 659 / 593,
//     533 / 485).
//
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, cuDNN in the same sweep):
// d=128 4x16x8192 670 non-causal (98 % of cuDNN's 686), 635 causal (101 %); 1x16x16384 671 (113 %)
// / 670 (105 %); d=64 2x32x8192 551 (110 %) / 489 (105 %), 1x32x16384 560 (116 %) / 520 (111 %).
// Over rung 6: +0.5-1 % at d=128, +1-5 % at d=64 — less than FA3's ablation (+12 %) because rung
// 6's ping-pong already hides most of the softmax. ncu: tensor pipe 71 % busy.
//
// The kernel (barriers, role split, producer, consumer set-up, epilogue) is rung 6's:
// device/wgmma_ws_kernel.cuh. What is rung 7's own, the consumer schedule and why it cannot
// deadlock, is device/overlap_schedule.cuh (a header since rung 9 runs it too); this file makes
// the rung's rows from it.
//
// Head_dim 256 (session 8): the 80-key tile (wgmma_traits.cuh) and K and V released separately
// (wgmma_ws_kernel.cuh, produce_tile). H100, bf16, 16k tokens x 16 heads, TFLOP/s, one call
// (session 8 call 1), before -> after: S=512 375 -> 444, 1024 424 -> 541, 2048 453 -> 615, 4096
// 476 -> 674, 8192 443 -> 700, 16384 462 -> 716 non-causal; causal 250 -> 281 ... 477 -> 702. At
// d64/d128 the release change measured level (within the call's 1-2 % spread). With FA4 and
// cuDNN in one call (session8/fa2/ladder.csv): 2x16x8192x256 747 / 703 (causal) against cuDNN
// 668 / 671 and FA4 753 / 719.
//
// Session 10: the issue window. ptxas had scheduled an integer division (the query position
// m_start / heads_per_kv of softmax_tile's mask test: I2F, MUFU.RCP, F2I, ~20 instructions with
// long latencies) between the issue token's bar.sync and the last S wgmma of each batch, where
// every stall delays this warpgroup's P·V and the token's next holder. A shift now
// (position_of_row: packing needs heads_per_kv | 64), and each slot's wgmma descriptor once per
// batch: 140 -> 89 instructions in that window at d=128. H100, bf16, three rounds of 5 + 30
// launches, median TFLOP/s, before -> after (session 10 call 8): 2x16x8192x128 595 -> 624,
// causal 549 -> 568; GQA 4x32(kv 8)x8192 608 -> 630; 8x16x2048 causal 420 -> 441; 2x32x8192x64
// 477 -> 503, causal 432 -> 456; rung 6 the same +3-7 %, rung 9 level (its window held no
// division). Found by comparing with FA4's sm90 kernel under ncu at the base clock (call 7):
// same tile and schedule, 19 % fewer instructions, tensor pipe 85 % busy against rung 9's 74 %.
//
// Session 11: the warpgroup index made uniform (hopper::warp_uniform in ConsumerThread). From
// threadIdx it was per-thread to ptxas, so Q's descriptor sat in vector registers and every S
// HGMMA needed two R2UR first: d=128 main loop 16 R2UR -> 0, 19 IMAD -> 4, window 90 -> 59, loop
// 729 -> 695 instructions. Three rounds, 5 + 30 launches (session 11 call 1), median TFLOP/s:
// 2x16x8192x128 611 -> 626, causal 569 -> 589; GQA 630 -> 639; 2x32x8192x64 499 -> 513, causal
// 434 -> 464; 2x16x8192x256 721 -> 734; seqlen 512 -2 to +2 %. ncu at the base clock, 2x16x8192x128:
// 2.94 M cycles (session 10, before the window change) -> 2.77 M, 616 M -> 519 M instructions
// (FA4: 2.49 M, 485 M). Not kept (call 4): the mask folded into one bound per row, one compare
// per element (masked path 132 ISETP + 35 VIADD -> 68 + 4): causal shapes level (-3 to +2 %).
// Then FA4's SASS (call 8) showed its O rescale and P packing placed between the softmax's
// MUFU.EX2s, where ours ran as ~100 instructions before the next batch: the P·V wait now sits
// inside the softmax at a per-tile column (kPvWaitColumn; overlap_schedule.cuh says why there),
// with the rescale and the packing after it in the same basic block. Three rounds (call 10),
// against the wait after the softmax: d64 +1.5-6.5 % (2x32x8192 507 -> 518, causal 455 -> 470;
// 8x32x2048 causal 312 -> 333), d128 +1-3 % (2x16x8192 613 -> 627, causal 578 -> 594; GQA
// 633 -> 646), d256 and decode level.
//
// Session 14: 160 keys a tile at head_dim 128 (WgmmaTileD128Wide in wgmma_traits.cuh, 2 stages,
// 197,704 B), the default from 2,048 query and key rows on (kLongRows below). What a tile costs
// besides its GEMMs and exponentials does not grow with its keys (the row max's shuffles, alpha,
// the O rescale's 64 FMUL per thread, two ring waits and the token's two bar.syncs, the issue
// window); at 160 keys it is spread over 25 % more work. FA3 runs 176 keys non-causal for that
// reason; session 9 measured 176 on this rung +2-12 % but kept 128 because rung 9 was then the
// best kernel and could not fit 176 with its second Q buffer. Session 14 call 1 (H100 SXM, bf16,
// 16 heads, 5 + 30 launches, three rounds, tile order rotating, TFLOP/s medians, rung 7 at 128 ->
// 160 keys; in parentheses 176 keys, and rung 9 at 128 -> 160 keys with both Q buffers):
//   S = 512    414 -> 361 (400; rung 9 483 -> 429), causal 258 -> 235: four 160-key tiles for 512
//              keys, 25 % of the work padding;
//   8x16x2048  578 -> 589 (566; 589 -> 609), causal 449 -> 452 (434; 495 -> 487);
//   4x16x4096  604 -> 622 (610; 619 -> 619), causal 529 -> 525 (521; 553 -> 536);
//   2x16x8192  650 -> 674 (663; 654 -> 664), causal 611 -> 624 (602; 624 -> 611);
//   4x16x8192  624 -> 659 (649; 655 -> 650), causal 611 -> 643 (626; 601 -> 607);
//   1x16x16384 660 -> 703 (677; 665 -> 678), causal 658 -> 699 (679; 651 -> 661).
// 176 keys lost to 160 at every point, and rung 9 gained only at 2,048 and 16k: neither was kept.
// The P·V wait stays after 64 columns (kPvWaitColumn): after 80 or 96 of the 160 measured -2 to -4 %
// and -1 to -7 % at 8k-16k (call 6; one point, 4x16x8192 non-causal, +3 % at 80).
// On the default timing rule (steady state, call 2) 128 -> 160: 2x16x8192 630 -> 662, causal 542 ->
// 595; 4x16x8192 626 -> 646, 567 -> 582; 1x16x16384 645 -> 685, 603 -> 659; GQA 4x32(kv 8)x8192
// (call 4, bursts) 647 -> 672, causal 521 -> 630. In the FA2 grid with FA4 and cuDNN (call 3) this
// rung is the best fa-bench kernel at 5 of the 8 head_dim-128 points from 4,096 rows on, rung 9 at
// the other 3 (README: Results on an H100).
//
// Session 15: the causal tile order (fa/grid_order.h; FwdParams::lpt_group; the rule and why:
// fa/launch_plan.h). Every Hopper rung dispatched one head's row blocks (heaviest first), then the
// next head's: a list-scheduling model of the FA2 grid's causal points puts that at 94-97 % of a
// perfect balance on 132 SMs; row blocks interleaved over the head slots whose K, V, Q and O fit
// the L2 together, at 98-99.9 %. Measured in one call (session 15 call 5, H100 SXM, bf16, 5 + 30
// launches, two rounds, rule order rotated, TFLOP/s medians, this rung, old order -> grouped):
// d64 8x32x2048 causal 342 -> 349, 4x32x4096 400 -> 414, 2x32x8192 458 -> 490, 1x32x16384
// 485 -> 512; d128 8x16x2048 441 -> 466, 4x16x4096 522 -> 549, 2x16x8192 586 -> 618, 4x16x8192
// 593 -> 623, 1x16x16384 665 -> 663 (one head's 128 row blocks nearly fill the GPU there); d256
// 8x16x2048 509 -> 556, 4x16x4096 593 -> 650, 2x16x8192 654 -> 710, 1x16x16384 742 -> 738.
// Non-causal rows keep the old order. Below 2,048 keys this rung keeps it too: grouped, it
// measured -8 to +3 % at 512 and 1,024 keys (d128 32x16x512 causal 260 -> 240).
//
// Session 22 (results/nvidia-h100-80gb-hbm3/session22/ call 8, H100 SXM, bf16, fa-bench's default
// timing rule, two rounds): the lazy row max at head_dim 256 (WgmmaTileD256::kLazyMax, shared with
// rungs 5, 6 and 9: a row's max rises only when a tile's exceeds it by more than 8 base-2 logits,
// so p <= 256, and wgmma::rescale_o's warp vote skips O's 128-FMUL rescale, which at head_dim 256
// runs after all the exponentials, on nearly every tile; FlashAttention-4's conditional rescale,
// rung 8's since session 22 with its own e4m3 slack, fa/fp8.h). FA2 grid's head_dim-256 rows, this rung: 512
// 432.2 -> 442.9, causal 293.0 -> 298.9; 1,024 560.4 -> 568.8, 412.3 -> 432.5; 2,048 628.4 ->
// 647.2, 539.5 -> 559.2; 4,096 680.7 -> 699.5, 640.2 -> 652.9; 8,192 724.9 -> 739.2, 701.8 ->
// 712.6; 16,384 742.3 -> 755.8, 738.5 -> 746.3 (+1.1 to +4.9 %); GPU tests pass. Head_dim 128 and
// 64 keep the eager max: there the rescale's FMULs sit between the exponentials after the P·V
// wait (overlap_schedule.cuh) and cost no issue slots, and a vote would split that basic block.
// Measured in session 37 (call D, an H200, three rounds; results/nvidia-h200/session37/
// lazy_max.patch): 0.960-0.991x on rungs 7 and 9 at head_dim 128 and 64, every row slower.
//
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads (+128 launched)  stages  smem (B)   regs (entry/producer/consumer)
//   bf16/fp16  128  128 x 128 x 256                  3       230,480    168 / 24 / 240 (uses R0-R184)
//   bf16/fp16  64   192 x 128 x 384                  4       156,776    128 / 32 / 160 (uses R0-R157)
//   bf16/fp16  256  128 x 80 x 256                   2       230,472    168 / 24 / 240
//   bf16/fp16  128  64 x 128 x 128 (decode)           3       209 KiB    192, no setmaxnreg
//   bf16/fp16  128  128 x 160 x 256 (long rows)       2       197,704    168 / 24 / 240
//
// The decode tile (session 9, WgmmaWsD128Decode in wgmma_ws_kernel.cuh): one consumer warpgroup of
// 64 rows, the default where every query row of a (batch, K/V head) fits it (its DefaultRule;
// the README's "The decode tile"). H100, bf16, two rounds of session 9 call 1, median us, 128 ->
// 64 rows: 16x32x16x8192 (8 K/V heads) 185.5 -> 180.6, 64x32x1x8192 (8) 706 -> 695, 16x32x16x8192
// (32) 704 -> 697, 1x32x1x131072 (8, 16 splits) 185.2 -> 181.9; the 128-row rows ran at 1,375-
// 1,665 MHz, drawing power for the rows they compute and do not keep, the 64-row ones at 1,980.
//
// Session 30 (results/nvidia-h100-80gb-hbm3/session30/): the tail split (fa/splitkv.h, rung 8's
// since session 27): where the non-causal grid's last wave is at most half full, its tiles run as
// 2-4 key chunks in a second build of the kernel (wgmma_ws_kernel.cuh, kTailChunks) launched after
// the tiles' as a programmatic dependent launch, merged by the last chunk of each tile
// (device/tail_merge.cuh). The tiles' build is SASS-identical to session 29's kernel. Call 1 (H100
// SXM, default timing rule, two rounds, against the build without it): 4x16x8192x128 (4 tiles x 4
// chunks) 640.8 -> 657.2 TFLOP/s; 4x32x4096x64 (44 x 3) 466.2 -> 481.5; 8x32x2048x64 (44 x 2)
// 433.9 -> 430.5 (level); 2x16x8192x128 (no split) level. The chunks' build spills 12 B at
// head_dim 256, outside the key loop.
//
// Session 31 (results/nvidia-h100-80gb-hbm3/session31/): the running max from the most negative
// finite float instead of -inf (online_softmax.cuh's kRowMaxStart), so the softmax drops its -inf
// guards: per row and key tile one FSETP and FSEL for the factor, one of each for the exponent
// offset and the FMNMX against -inf that started the tile max (10 fewer SASS instructions a trip
// at every tile). H100 SXM, default timing rule, two rounds each, against 416ae70, calls 1 / 2:
// 2x32x8192x64 516.9 -> 526.4 / 519.6 -> 521.4, causal 483.3 -> 487.5 / 486.1 -> 485.2;
// 1x32x16384x64 535.4 -> 535.4 / 524.9 -> 536.3; 4x32x4096x64 490.8 -> 494.9 (call 2);
// 4x16x8192x128 666.5 -> 674.2 / 657.1 -> 667.9, causal 623.2 -> 620.2 / 619.2 -> 619.5;
// 2x16x8192x256 738.1 -> 735.1, causal 715.9 -> 715.3 (call 2). Two chains per row for the tile max
// on top of it (call 2, session31/row_max_two_chains.patch; the same instructions, depth 9 for 16):
// level (-0.5 to +1.5 % against the change alone, mean +0.1 %), not kept.
//
// Session 33 (results/nvidia-h100-80gb-hbm3/session33/): at head_dim 64 the key tiles that need no
// mask run first, in a loop of their own whose softmax has no mask test (overlap_schedule.cuh,
// WgmmaTileD64::kUnmaskedLoop), as FlashAttention keeps its masked and unmasked loops apart: that
// loop's trip is 409 SASS instructions against the one loop's 551. Call 2 (the test compiled out,
// right on non-causal rows whose keys fill whole tiles) then call 3 (the split; H100 SXM, default
// timing rule, three rounds, scripts/ab.py): 1x32x16384x64 537.1 -> 540.4, 2x32x8192x64 526.6 ->
// 530.7, 4x32x4096x64 491.6 -> 496.8, causal level (457.6 -> 457.8), 32x32x512 causal 167.9 ->
// 166.2. Head_dim 128 and 256 keep one loop (mixed there: 1x16x16384x128 680.5 -> 662.6,
// 2x16x8192x256 731.6 -> 744.0; the configs in wgmma_traits.cuh), and their SASS is unchanged.
//
// Session 35 (results/nvidia-h200/session35/, an H200, this kernel unchanged): against FA4 in the FA2
// grid 0.971x at 2x16x8192x128 and 0.987x at 1x16x16384x128 non-causal (call D, both at the 700 W
// cap). ncu on one launch each (call G4, below the cap) finds the same gaps in cycles: 2.572 M
// against FA4's 2.498 M (+3.0 %) and 4.961 M against 4.890 M (+1.4 %), with the same instruction
// count (489.7 M against 485.5 M; 954.6 M against 966.1 M) and fewer shared-memory wavefronts. The
// difference is in stalls per issued instruction: dispatch 0.88 against 0.57, fixed-latency wait
// 1.83 against 1.55, where FA4's warps show 0.45 on gmma and ours none. ncu's per-instruction samples
// (call H) spread the dispatch stalls over the softmax and the issue window: FMNMX (the row max)
// 18 %, FFMA 14 %, FMUL 12 %, MUFU 12 %, HGMMA 11 %, the window's uniform adds 10 %; the waits sit
// on MUFU 41 %, HGMMA 20 %, FMNMX 18 %. Not kept (call I, session35/desc_words.patch): the k-step
// descriptor offsets as 32-bit adds to the low words, so the window has no UIADD3.64 (17 -> 0, the
// loop 709 -> 727 instructions, ptxas re-materializing the high words): level, 0.977-1.017x over
// rungs 7 and 9 at 2x16x8192x128 and 1x16x16384x128 (geometric mean 0.998; GPU tests passed on it).
//
// Session 36 (results/nvidia-h200/session36/, an H200): FA4's kernel read from its own SASS, compiled
// without a GPU (scripts/fa4_sass.py). At head_dim 128 it runs 128 x 128 tiles, 2 stages, two
// consumer warpgroups at 240 registers, P·V from registers, ping-pong and this overlap; its trip is
// 457 SASS instructions (this rung's 592 at 128 keys, 130 of them the mask behind its branch; 709
// at 160). Where it differs: V(t) is waited inside the token, between the S and P·V issues, so the
// softmax holds no spin-wait and ptxas put its P·V wait after all 66 FFMAs and 10 of 66 MUFU; the
// row max runs in three chains a row; its wait loops sleep (NANOSLEEP.SYNCS). ncu per SASS line
// (call C4, 2x16x8192x128, one launch each): 551 M warp instructions at 128 keys, 534 M at 160,
// FA4's 489 M; of the difference, ~20 M SYNCS and ~23 M BRA are the producer's polls of its empty
// barriers. In stall samples this rung waits longer for the issue token (the sample lands on the
// instruction after its bar.sync: 8.3 % against 4.2 %), its F2FP packs meet math-pipe throttle
// (1.6 % against 0; ptxas leaves them in runs of three between the last MUFUs), its HGMMAs and the
// window's UIADD3 take more dispatch stalls (1.9 / 1.1 % against 0.9 / 0.2 %), while FA4's MUFU
// carry more waits (17.3 % against 10.5 %): FA4's softmax is the denser one. Measured and not kept
// (calls B and D, three rounds each against the committed build, rungs 7 and 9):
//   - FA4's order (session36/v_at_issue.patch): with no spin-wait in the softmax ptxas hoisted the
//     P·V wait to its start, before the row max: 0.924-1.000x, geometric mean 0.957.
//   - the 160-key tile's P·V wait after 32 columns instead of 64 (pv_wait_32.patch): 0.972-1.017x,
//     mean 0.991.
//   - the CTA's last key tile's P·V issued for the keys each warpgroup sees (last_tile_pv_steps.patch:
//     2, 4, 6 or 8 of its k16 steps; 8,192 keys leave 32 in the last 160-key tile): 0.990-1.022x,
//     mean 1.000. Its S at 64 or 128 columns as well made ptxas serialize the wgmmas (C7511), and the
//     build's guard refused it.
//   - every mbarrier wait with a suspend-time hint (try_wait_hint.patch; ptxas then sleeps a failed
//     wait on NANOSLEEP.SYNCS, as FA4's do): 0.984-1.013x, mean 0.999, FP8 -0.6 to -1.7 %. The
//     producer's polls take issue slots ncu counts and cost no time measured (session 17's finding at
//     512 keys, now at 8k-16k).
//   - every exponent's argument computed before the P·V wait, as FA4 has them (ffma_first.patch,
//     call E; online_softmax_tile's kArgsFirst): 0.963-1.015x on rungs 7 and 9, geometric mean 0.993;
//     -0.4 to -3.7 % on the 160-key tile non-causal (level causal), -0.8 to -1.5 % at head_dim 64,
//     +0.6 to +1.5 % on rung 9's 128-key causal tile, which keeps it (09_wgmma_persistent.cu). This
//     rung's tiles keep the fused FFMA + MUFU.
// Packing P(t+1) group by group right after its exponentials (in source order) left ptxas's
// schedule as it was, the F2FPs still in runs of three at the end: not timed.
//
// Session 37 (results/nvidia-h200/session37/, an H200): issue #10's grid on session 36's kernels,
// 30 of 38 points at the bar; the misses are FA4's, head_dim 128 non-causal from 4,096 rows
// (0.971-0.997x) and head_dim 64 at 8k-16k (0.982-0.999x). At 1x32x16384x64 under ncu (call E) rung
// 9 takes 1.8 % more cycles than FA4 with the same softmax instructions and waits longer for the
// issue token (9.0 % of stall samples against 5.2 %), as here at head_dim 128. Measured and not kept
// (three rounds each against the committed build): the lazy row max at head_dim 128 and 64 (above);
// the producer's empty-slot waits with FA4's suspend-time hint (producer_sleep.patch: 0.984-1.008x,
// mean 0.9985; its ~32 M polls at that point cost no time); this rung's 128-key tile for long
// non-causal rows (--n_block_size 128: 3.1-6.2 % below 160 keys, 1x16x16384 621.9 against 660.3).
// Not run: the row max in two or four independent chains a row (FA4's loop has three): ptxas
// re-forms the reduction, and the 160-key loop came out byte-identical.
//
// Session 38 (results/nvidia-h200/session38/ call A, an H200, three rounds against the committed
// build): the token handed on right after S(t+1)'s issue, before P(t)·V(t)'s (session37/
// token_after_s.patch, through overlap_schedule.cuh; aimed at the token waits above): 0.9959x over
// 28 rows; head_dim 128 non-causal 0.979-0.992x (rung 7 1x16x16384 672.7 -> 658.6, 2x16x8192 649.5
// -> 639.6), head_dim 64 0.987-0.997x, head_dim 256 level. Not kept: the token stays after the
// P·V issue, where FA4 passes it too.
//
// Not kept (session 21 call 7, results/nvidia-h100-80gb-hbm3/session21/bf16_qreg.patch; H100 SXM,
// bf16, default timing rule, two rounds): rung 8's Q in registers (S = Q·Kᵀ as wgmma RS, so the S
// GEMM reads only K from shared memory: 64 instead of 96 B per tensor-core cycle) on rungs 6, 7
// and 9. The 128-key head_dim-128 tile (32 more registers, no spill) and the short causal
// head_dim-64 tile: level, -2.8 to +1.5 % on the FA2 grid's head_dim-128 rows (rung 7 4x16x8192
// 651.1 -> 656.7, rung 9 32x16x512 460.3 -> 462.3, rung 7 16x16x1024 causal 340.3 -> 330.9). The
// 160-key tile spills 32 B with it: -19 to -27 %. The 192-row head_dim-64 tile spills 96 B at its
// 160 registers (not run). FP8 gained 3-13 % from the same change (08_wgmma_fp8.cu); in bf16 the
// shared-memory reads are not what the S GEMM waits on.

#include <vector>

#include "device/overlap_schedule.cuh"
#include "device/wgmma_ws_kernel.cuh"
#include "kernels/kernels.h"

namespace fa {

namespace {

// Where the 160-key head_dim-128 tile (wgmma_traits.cuh, WgmmaTileD128Wide) replaces the 128-key
// one: at least 2,048 query and key rows, causal or not (session 14 call 1, the header's table:
// +2 to +7 % from 2,048 rows on, -1 % at one causal point; -13 % at 512, where 512 keys are four
// 160-key tiles, 25 % of them padding). Under 2,048 keys the last tile's padding passes 1.6 %.
bool long_rows(const KernelInfo&, const KernelInstance&, const ProblemShape& p) {
    return p.seqlen_q >= 2048 && p.seqlen_k >= 2048;
}
constexpr DefaultRule kLongRows{&long_rows, "seqlen_q and seqlen_k >= 2048"};

}  // namespace

const std::vector<KernelInstance>& wgmma_overlap_instances() {
    static const std::vector<KernelInstance> instances = [] {
        std::vector<KernelInstance> rows = wgmma::ws_rows<wgmma::OverlapSchedule, true>();
        rows.push_back(wgmma::ws_instance<wgmma::WgmmaWsD128Wide<__nv_bfloat16>, wgmma::OverlapSchedule, true>(kLongRows));
        rows.push_back(wgmma::ws_instance<wgmma::WgmmaWsD128Wide<__half>, wgmma::OverlapSchedule, true>(kLongRows));
        return rows;
    }();
    return instances;
}

}  // namespace fa
