// Rung 8 — `wgmma_fp8`: rung 07 (`wgmma_overlap`: producer warpgroup, setmaxnreg, consumer
// ping-pong, softmax(t+1) under P(t)·V(t)) with Q, K, V in FP8 e4m3 and both GEMMs on the 8-bit
// tensor-core path, wgmma.mma_async.m64nNk32.f32.e4m3.e4m3: FP32 accumulation, O written in bf16
// (--dtype Float8E4M3FN; README: FP8). Head_dim 128 (tile 128x128, and 192x64 on the pre-pass way
// since session 26: three consumer warpgroups) and 256 (128x64, since session 12).
//
// What changed from rung 07, and why:
//   - Operands. Dense H100 FP8 wgmma runs at twice the bf16 rate (1979 vs 989 TFLOP/s dense,
//     datasheet) and its operands are half the bytes: Q, K and a K/V ring slot are 16 KB at
//     d=128 (32 KB in bf16). K = 32 per instruction = 32 bytes, so the descriptor arithmetic of
//     S = Q·Kᵀ is rung 7's (one 128-byte swizzle row now holds all 128 columns of a row).
//   - Q from registers (since session 21; d128, and d256 since session 22 both ways): each consumer
//     thread reads its rows' A fragments once, and S = Q·Kᵀ is wgmma RS, so the GEMMs read only K
//     and Vᵀ from shared memory. +3 to +4 % at d128, +8 to +13 % at d256 (numbers at the end).
//   - V is transposed before the GEMMs read it. 8-bit wgmma takes no transpose immediate: both
//     operands must be K-major, and for O += P·V the K dimension is the keys, while V arrives
//     head_dim-contiguous (rung 7 passes it MN-major with imm-trans-b = 1). Two ways, chosen per
//     problem by use_vt_prepass (at the bottom):
//       * in the kernel (FA3's and cuDNN's choice; sessions 4-19 the only one): the producer
//         warpgroup's 128 threads turn each raw V tile (TMA'd into one of kRawSlots staging
//         slots) into Vᵀ (rows = head_dim, keys in σ's order, below, 128-byte swizzled) in the ring
//         slot the consumers read, then arrive on its full barrier. Cost per CTA tile: 16 KB read +
//         16 KB written in shared memory beside the wgmmas' ~96 KB of reads, 72 producer registers
//         (the consumers keep 216 of rung 7's 240: P is 16 registers instead of 32);
//       * by a pre-pass (session 20; fp8_vt_prepass_kernel): a kernel of the same launch writes
//         Vᵀ into the workspace, and the producer's one TMA thread loads its tiles as it loads K.
//         Cost: one more read and write of V whatever the number of query rows that reuse it.
//     So the pre-pass wins where many rows read each K/V head: at 8,192 and 16,384 rows +1 to +9 %
//     and -2 to -9 % energy per launch, at 512-2,048 rows -1 to -21 % (session 20, the numbers at
//     the end). A transpose by the consumers was never a candidate: ~100 shared-memory
//     instructions per tile on the warpgroups that feed the tensor core.
//   - P's register layout. softmax leaves P in the fp32 accumulator layout: thread (quad lane t)
//     holds, per row, columns 8i + 2t + {0,1} of every 32-key k-step; the k32 A fragment wants
//     columns 4t..4t+3 and 16+4t..16+4t+3 (PTX ISA, wgmma .m64nNk32 A fragment). Rather than
//     moving bytes between lanes, each thread packs the 8 values it has in place, so A-fragment
//     position κ (0..31) of a k-step holds key σ(κ) = 16·(κ/16) + 8·((κ%4)/2) + 2·((κ%16)/4) + κ%2,
//     and Vᵀ holds the keys in the same permutation (a row of Vᵀ holds, at byte 32kk + κ, key
//     32kk + σ(κ)). O = Σ P·V sums over keys, so permuting both sides identically changes
//     nothing; σ keeps every 16-byte chunk's keys inside that chunk, so the transpose stores
//     whole chunks. Zero shuffles on the consumers' path.
//   - Scales. S's scale is softmax_scale · q_descale · k_descale, folded into the exp2 scale; O
//     is multiplied by v_descale with 1/l in the epilogue. P is quantized with a fixed scale,
//     2^kPScaleLog2: p = 2^(s·scale_log2 - m + kPScaleLog2), so P stays normal down to 2^-11 of
//     the row max (unscaled, everything below 2^-6 would be subnormal), and the scale is an
//     exponent offset (no multiply) that cancels in O / l because l sums the same scaled P. Until
//     session 22 the offset was FA3's 8 (P ≤ 256); since then m may lag the row's true max by up
//     to kMaxSlackLog2 (the lazy max: O's rescale skipped), and since session 24 the offset is 5
//     with a slack of 3.75, so P ≤ 2^8.75 = 430.5 < 448 never saturates (fa/fp8.h has why).
//   - The speculative softmax (head_dim 128 since session 24, and head_dim 256's pre-pass way since
//     session 25; softmax_pack_speculative): with a slack that wide a warp's running max almost
//     never rises, so every tile after the first takes its exponentials, row sums and e4m3
//     packing with the running max, and a warp redoes the tile only if one of its P bytes reached
//     448 (since session 25 read from the packed bytes; the tile max's FMNMX chain and shuffles
//     are gone from the path). P(t+1) is packed into a second register buffer while P(t)·V(t)
//     reads the first.
//   - The issue token (rung 7's ping-pong) only on the in-kernel ways: on the pre-pass ways each
//     consumer warpgroup issues its GEMMs as soon as its operands are ready (since session 25,
//     kIssueToken; the configs have the numbers).
//   - The tail split (since session 27; fa/splitkv.h): where the grid's last wave is at most half
//     full (non-causal), its tiles run as 2-4 key chunks in a second launch of this kernel built
//     for chunks (kTailChunks), merged in the kernel by the last chunk to finish (merge_tail;
//     device/tail_merge.cuh since session 30, when rungs 7 and 9 took the split too).
//   - Not here: split-KV, packed GQA and the LSE; head_dim 64.
//
// Prediction (H100 SXM, 4x16x8192, d=128): FA3 reports ~1.2 PFLOP/s FP8 forward (paper, Fig. 7;
// 1.7-1.9x its bf16). Rung 7 measures 670 TFLOP/s here; 1.5x of it (the issue's bar) is ~1000.
// The producer's transpose is the new risk: it must stay under the ~0.55 µs a tile takes at
// 1 PFLOP/s (8.4 MFLOP per CTA tile at 132 SMs), ~30 shared-memory instructions per producer lane
// per tile; ncu's shared-memory bank conflicts and the consumers' wait on v_full say if not.
//
// Measured (H100 SXM, one device call, results/nvidia-h100-80gb-hbm3/session4/fp8.csv, TFLOP/s
// against rung 7 in bf16 in the same call): 4x16x8192 687.0 vs 603.9 non-causal, 636.9 vs 559.6
// causal; 1x16x16384 699.5 vs 618.8, 693.3 vs 616.1 — 1.13-1.14x, not the 1.5x predicted. It
// passes the GPU test matrix and compute-sanitizer; rel_l2 2.1-2.6e-2 (tolerance 0.0625). ncu
// (session4/ncu_fp8.txt): busiest pipe ALU (integer/logic) 38.5 %, SM throughput 53 % against
// rung 7's tensor pipe 71.7 %: the byte work around the GEMMs, not the GEMMs, sets its time now.
// The producer's transpose then cost 196 SASS instructions per 16-key group (2 per warp per tile),
// 128 of them a signed key % 8 per load and per-store swizzle arithmetic (transpose_v): with the
// per-lane offsets hoisted and the bytes moved as a 4x4 byte transpose (8 PRMT per 4 words, was 12)
// the whole producer loop is 200 instructions per tile (was ~490: 294 + a second 196-instruction
// group), 32 LDS + 64 PRMT + 8 STS.128 of them. Same call (session4/fp8perf.log, H100 SXM,
// 4x16x8192x128, TFLOP/s): 682.2 -> 778.9 non-causal, 637.9 -> 710.0 causal (a repeat of both
// binaries later in the call: 683.7 -> 774.6, 642.8 -> 711.3), +13-14 % / +11 %; rung 7 597.7 and
// 552.7-570.5 in that call, so 1.30x / 1.24-1.28x. The consumer loop is unchanged (778 SASS
// instructions, 530 on an unmasked tile). GPU tests (120,022 assertions) pass and memcheck,
// racecheck, synccheck are clean at d128, same call. Tried in the same call and not kept:
// computing 1/4 or 1/2 of the exp2 on the FMA pipe (Cody-Waite + cubic) instead of MUFU.EX2:
// 689.2 / 669.9 non-causal, slower than the MUFU-only kernel: +112 / +224 instructions per tile
// on the consumers cost more issue slots than the MUFU time they free.
// Then on the consumers (the same lesson: their instruction count sets the time): the query
// positions' divisions by heads_per_kv hoisted out of the tile loop, and rescale_o skipped by
// warps none of whose rows raised its max (bit-identical): the unmasked tile 530 -> 505 SASS
// instructions, 441 when the 64 FMULs are skipped. Next call (session4/fp8perf.log, both binaries
// twice, interleaved): 772.6 / 763.9 -> 783.2 / 796.3 non-causal, 705.5 / 706.0 -> 724.5 / 718.3
// causal (+2.8 % / +2.2 % on the means); rung 7 598.0 and 554.5-576.3: 1.32x / 1.29x. GPU tests
// (120,022 assertions) and the three sanitizers at d128 clean on it in that call.
// The committed kernel in one more call (session4/fp8_final.csv): 4x16x8192 802.8 vs rung 7's
// 597.6 (1.34x), causal 735.1 vs 559.8 (1.31x); 1x16x16384 795.6 vs 613.4 (1.30x), 762.2 vs 616.5
// (1.24x). ncu (session4/ncu_fp8_final.txt): the tensor pipe is now its busiest (42.5 %).
// Sessions 10-11, changes to the bf16 rungs' shared code measured here too and not taken: 4-chain
// row reductions (-6 to -9 %), the uniform warpgroup index (-6 %: the consumer's constructor) and
// the one-bound-per-row mask (-8 %, session 11 call 4): 4x16x8192x128, three rounds each. This
// kernel's time moves with its instruction schedule more than its instruction count. Session 11
// call 13: rung 7's P·V wait inside the softmax (O rescale, unconditional, and P packing after
// it, between the exponentials; overlap_schedule.cuh), 4x16x8192x128 and 1x16x16384x128, causal
// and not, three rounds: the wait before the exponentials +2 / +2 / -1 / +5 % (per MHz -4 to
// +6 %), after 64 of 128 columns -3 to +4 %, after all -4 to -9 %: not taken (within the rounds'
// spread). FP8 / best bf16 rung in that call: 1.17-1.25x (769 / 632, causal 750 / 601 TFLOP/s).
// Session 12: the kernel is a template of its tile (Fp8Traits<Config>) and head_dim 256 has an
// instance, WgmmaFp8D256: 64 keys a tile, because shared memory allows no more (its comment), so a
// Vᵀ row is 64 key bytes, 64-byte swizzled (hopper::make_smem_desc_sw64), the producer's two
// transpose units per warp are one key group in each of V's two 128-column blocks, S = Q·Kᵀ is
// m64n64k32 over two 128-byte column blocks of Q and K, O += P·Vᵀ one m64n256k32 per 32 keys,
// and O's bf16 staging (64 KB) spills from the raw V slots (48 KB) into Q's first chunk. The d128
// instance's consumer SASS is unchanged by the templating (the producer's one-time lane setup
// lost a signed modulo). Call 1 (results/nvidia-h100-80gb-hbm3/session12/call1/, H100 SXM, two
// rounds of 5 + 30 launches, TFLOP/s medians; non-causal FP8 rows at the 700 W cap, 1,600-1,700
// MHz): 1x16x16384x256 893 / 881 non-causal, 928 / 921 causal against the best bf16 rung's 751 /
// 751 and 746 / 740 (1.19x / 1.24x); 2x16x8192x256 836 / 818 and 849 / 849 against 753 / 742 and
// 738 / 709 (1.10x / 1.15x); d128 in the same call 1.14-1.22x. GPU tests (168,029 assertions, the
// matrix with FP8 d256) and memcheck, racecheck, synccheck at d128 and d256 clean in that call.
// Where the d128 kernel's time goes (call 2, ncu at the base clock, 4x16x8192x128): 4.78 M cycles
// against rung 7's 5.31 M in bf16 (-10 % for half the tensor-core time), tensor pipe 43 %, MUFU
// 45 %, issue 48 %; 2,405 cycles per 128x128 CTA tile, where the tensor pipe needs 1,024 and
// MUFU.EX2 1,024: the two overlap poorly because each warpgroup's softmax runs one warp per
// scheduler and is latency-bound (the hot lines are the row max's FMNMX after its shuffles, and
// the S wait). Tried, each in one call, three rounds against the 128x128 tile, not kept:
//   - three consumer warpgroups on 192x64 (a third warp per scheduler; 144 registers, no spill;
//     call 3): -2 to -9 % (4x16x8192 777-792 -> 710-743, causal 763-765 -> 711-715);
//   - 192 keys a tile at d128 (Vᵀ rows as a 128-byte and a 64-byte swizzled block, 3 stages with
//     lookahead 1 to fit 208 KB, 216 registers, no spill; call 4): level to -3 % (4x16x8192 773 ->
//     772, causal 766 -> 742; 1x16x16384 773 -> 747, causal 798 -> 819).
// cuDNN 9.19's FP8 attention, the peer that beats this rung (call 4: 1,022 / 896 TFLOP/s at
// 4x16x8192x128 against 773 / 766), under ncu in call 5: a persistent kernel (132 CTAs of 384
// threads, 168 registers at entry, 232 KB of shared memory), S = Q·Kᵀ as m64n256k32 (256 keys a
// tile: the consumers must hold 240 registers), V transposed with LDSM/STSM; 14 % faster than
// this rung at the base clock (2.66 vs 3.03 ms) on 11 % fewer instructions (1,097 M against 1,217 M
// for the same work: our PRMT 8.3 % of them against 3.1 %, LDS 2.8 % against LDSM 0.8 %, twice the
// uniform-datapath address arithmetic), and timed at 1,940-1,980 MHz where this rung's
// non-causal rows sit at the 700 W cap at 1,590-1,730 MHz. The path it shows: a producer that
// transposes with LDSM.T/STSM in few registers, so the consumers get 240 and a 256-key tile, and
// a K/V ring whose K and Vᵀ slots are released separately, so two stages (not four plus three
// raw slots) fit 256 keys in 227 KB.
// Session 13 (results/nvidia-h100-80gb-hbm3/session13/, H100 SXM, every row on the default timing
// rule, i.e. at the clock the 700 W cap leaves, three rounds, order rotating):
//   - The producer's transpose with ldmatrix.trans, one prmt per word and stmatrix (transpose_v,
//     TransposeLaneLdsm; per lane and tile 8 LDSM.x4 + 32 PRMT + 8 STSM.x4 for 32 LDS.32 + 64 PRMT
//     + 8 STS.128): head_dim 256 +2 to +4 % (call 5: 1x16x16384x256 903 -> 920 TFLOP/s, causal
//     885 -> 920; ncu at the base clock, call 4: 4.33 -> 4.13 M cycles), kept there. Head_dim 128
//     -3 to -9 % (call 4; 2.43 -> 2.81 M cycles with its consumers' source unchanged: ptxas
//     reordered their softmax) and -4 to +2 % with the split at 56 / 224 registers (call 5): it
//     keeps the LDS.32 transpose (kTransposeLdsm per config). Call 7: the column-chunk loop not
//     unrolled, -7 to -12 % at d128 and -3 to -4 % at d256; d256 at 56 / 224 registers, level.
//     Call 10: d128 (LDS.32) at 56 / 224 registers -2 to -8 %, at 40 / 232 -3 to +2 %: 72 / 216 stays.
//   - P's row sums on the tensor core (Vᵀ with 8 rows of ones, O += P·Vᵀ as m64n136k32, no FADDs
//     in the softmax; call 3, not kept): -4 to -6 % non-causal at head_dim 128, and wrong at long
//     sequences, rel_l2 0.15 at 8k keys and 0.32 at 16k (0.04-0.08 causal): the FP8 accumulator
//     loses the small addends of a long sum of positive values, where O's signed terms pass.
//   The committed binary against the bf16 top rungs and cuDNN FP8 (call 6, README FP8 table):
//   1.18-1.31x the best bf16 rung, 0.81-0.95x cuDNN FP8.
// Session 19 call 4 (results/nvidia-h100-80gb-hbm3/session19/, H100 SXM, default timing rule, two
// rounds): the consumers' issue token compiled out (both warpgroups issue a batch once its
// operands are ready; 20 -> 6 named-barrier instructions): head_dim 128 -2 to -5 % (4x16x8192 770 ->
// 729, causal 736 -> 711), head_dim 256 +1-2 % (1x16x16384 909 -> 926), within about twice the
// rounds' spread; with the ldmatrix transpose at head_dim 128 too, -4 to -8 % there. At head_dim
// 128 each warpgroup's softmax is as long as both warpgroups' GEMMs, and the strict alternation
// keeps one's GEMMs from queueing behind the other's. Kept as it is.
// Session 20 (results/nvidia-h100-80gb-hbm3/session20/, H100 SXM, steady state: 3 s of warm-up,
// >= 1 s timed, two rounds, order alternating; TFLOP/s, mean SM clock, energy per launch):
//   - Where the time and energy went (call 4, diagnostic builds, outputs wrong by design,
//     session20/fp8_diag.patch): the transpose kept only for each Vᵀ slot's first use, at
//     4x16x8192x128 768 -> 780 TFLOP/s (1,684 -> 1,843 MHz, 2,005 -> 1,947 mJ), at 1x16x16384x256
//     901 -> 990 (3,380 -> 3,104 mJ); cuDNN FP8 in the same call 914 and 1,031.
//   - The pre-pass (calls 5 and 6, against the in-kernel transpose; cuDNN FP8 of the same call in
//     brackets), at 8,192 and 16,384 query rows: 1x16x16384x256 913 -> 997 (1,050), causal 887 ->
//     957 (986); 2x16x8192x256 887 -> 962 (1,050), causal 838 -> 869 (954); 1x16x16384x128 760 ->
//     817, causal 746 -> 776; 4x16x8192x128 757 -> 784, causal 715 -> 725. Energy per launch -2 to
//     -9 %. At head_dim 128
//     the diagnostic's +1.6 % undersold it: the pre-pass also takes the raw V loads and the 128
//     transposing threads' barrier traffic out of the CTA. GPU tests (the whole matrix, FP8 at
//     both head_dims) and memcheck / racecheck / synccheck clean on both head_dims; rel_l2
//     0.021-0.026 as before. The pre-pass kernel: 64 keys x 128 columns per CTA through shared
//     memory, 16-byte loads and stores.
//   - And at 16k tokens of shorter rows (call 11, same rule): 512 rows -15 to -21 % (d128 32x16x512
//     468.5 -> 388.7, causal 284.1 -> 227.1), 1,024 -8 to -16 %, 2,048 -1 to -9 %: the pass over V is
//     a fixed cost against fewer tiles that reuse it (at 32x16x512x128 it adds 40 % to the
//     compulsory bytes). Hence both ways, the pre-pass from 8,192 rows per K/V head
//     (seqlen_q x heads_per_kv). Call 12: GPU tests (a new case on each side of the threshold),
//     memcheck / racecheck / synccheck on both ways at both head_dims clean, and the dispatching
//     binary within 0.8 % of each single-way binary at 512, 2,048 and 8,192 rows. Call 13, at
//     4,096 rows per K/V head (4x16x4096, and 8x16x2048 with 2 query heads per K/V head): the
//     pre-pass +2.6 to +3.9 % non-causal (d128 GQA level), -1 to -5 % causal, where the attention
//     does half the work for the same pass. So since session 21 non-causal problems take it from
//     4,096 rows, causal ones from 8,192, and half as many at head_dim 256 (use_vt_prepass).
// Session 21 call 1 (H100 SXM, steady state, two rounds): that rule at 4x16x4096 non-causal, 711.5
// -> 727.5 TFLOP/s at d128, 827.0 -> 860.0 at d256. And the exponentials in half precision, for
// a P that is e4m3 anyway: ex2.approx.f16x2 compiles to one MUFU.EX2.F16 per half, and a
// microbenchmark (session21/calls/mufu_bench.cu) measures 16 exponentials per clock per SM for
// f32, f16x2 and bf16x2 alike (4.2 per ns on the GPU): the MUFU time does not halve. Not taken.
// Call 2: head_dim 128 at cuDNN's 256 keys a tile on the pre-pass path (session21/n256.patch: S as
// m64n256k32, 2 stages of K and Vᵀ with K's slot released once S is waited for, 24 / 240
// registers; ptxas spills 96 B, P's registers around the wgmma issue): correct (the pre-pass GPU
// test, memcheck / racecheck / synccheck clean) but -1.6 to -6.3 % against the 128-key tile, at a
// 30-80 MHz lower clock and 1-6 % more energy per launch (steady state, two rounds: 4x16x8192
// 790.6 -> 769.4, causal 737.1 -> 690.9; 1x16x16384 824.2 -> 800.4, causal 790.2 -> 756.6;
// 4x16x4096 740.3 -> 728.1). Not kept: the third tile shape after 192 keys (session 12) that does
// not pay here.
// Call 3: session 4's exponentials on the FMA pipe again, now that the producer no longer spends
// issue slots transposing (session21/poly.patch: x rounded by the 1.5·2^23 trick, 2^frac by a
// degree-2 polynomial, relative error 1.7e-3, the integer part added to the exponent bits; 6 more
// instructions for each MUFU.EX2 saved): one 8-column group in 8 -0.9 to -1.7 %, one in 4 -1.8 to
// -2.8 % (4x16x8192x128 792.6 -> 782.3 / 778.2; steady state, two rounds; rel_l2 unchanged).
// MUFU and issue are both ~45 % busy (session 12's ncu): the softmax is latency-bound, and more
// instructions on its chain do not buy MUFU time back. Not kept.
// Calls 4-5: Q's A fragments in registers (kQInRegisters; load_q_fragments, once per CTA), so
// S = Q·Kᵀ is wgmma RS and reads only K from shared memory (the SS form read Q's 64 rows again
// for every k-step: 2 KB of each 6 KB an m64n128k32 reads). At d128 (16 registers, 216 enough):
// steady state, two rounds (call 4), 4x16x8192 789.9 -> 815.2 TFLOP/s, causal 730.6 -> 758.2;
// 1x16x16384 823.8 -> 850.9, causal 786.4 -> 816.4 (+3.2 to +3.8 %, energy per launch -3 %), 32x16x512
// (in-kernel transpose) 468.4 -> 466.8. At d256 the pre-pass way only, with 24 / 240 registers
// (WgmmaFp8D256Prepass): default timing rule, two rounds (call 5, issue #11's script, cuDNN FP8
// in the same call), 1x16x16384x256 1,009.8 -> 1,093.1, causal 939.7 -> 1,060.5 (+8 / +13 %):
// ahead of cuDNN FP8's 1,054.2 / 981.5 (1.04x / 1.08x). GPU tests (172,795 assertions) and
// memcheck / racecheck / synccheck clean on every changed kernel (calls 4, 5). rel_l2 unchanged.
//   The register split (72 / 216), the ring (4 stages) and the tiles are still those the in-kernel
//   transpose needed. Freed by the one-thread producer and measured (calls 9 and 10, against the
//   committed kernels, two rounds): 24 / 240 registers -1 to -2.4 % at head_dim 128, +0.4 to +1.3 %
//   at 256 (within the rounds' spread); 5 stages at head_dim 128 level to -2.4 %; head_dim 256 at
//   128 keys (2 stages, 24 / 240, no spill, 230,456 B) -2.4 to -8.5 % (1x16x16384 984 -> 900,
//   causal 940 -> 893) though it held a 100 MHz higher clock. None kept. (cuDNN's FP8 kernel runs
//   256-key tiles at head_dim 128 with 240-register consumers: not tried.)
// Session 22 (results/nvidia-h100-80gb-hbm3/session22/, H100 SXM):
//   - Call 1: Q in registers on d256's in-kernel way too, at 40 / 232 (WgmmaFp8D256): +1.8 to
//     +4.9 % at 512-2,048 rows (its comment); GPU tests and the three sanitizers clean.
//   - Call 2 (ncu at the base clock, 1x16x16384x256 on the pre-pass way): 6.20 M cycles, tensor
//     pipe 67.8 %, MUFU 36 %, issue 42 % (cuDNN FP8's persistent 64x128x256 kernel: 6.74 M, 62 %).
//     Per 128x64 CTA tile ~1,510 cycles against the tensor pipe's 1,024. A consumer warp's
//     samples: softmax 50 % (its exponentials 31 %, MUFU shared with the other warpgroup's warp on
//     the scheduler), the packing of P and O's rescale 14 %, the token and S waits 10 % each, the
//     GEMM issue 13 %. O's 128-FMUL rescale ran on 20 % of the warp-tiles (a row max rose). The
//     pre-pass: 64.8 us, stalled on shared memory (a byte per LDS, 6.4 M bank conflicts).
//   - Call 3: the lazy row max (online_softmax_tile's kLazyMax, kMaxSlackLog2 = 0.75: a row's max
//     rises only when a tile's exceeds it by more than 0.75 in base-2 logits, so P <= 2^8.75 <
//     448 and O's rescale is skipped more often), and the pre-pass reading 32-bit words with PRMT
//     byte transposes (fp8_vt_prepass_kernel: 64.8 -> 47.4 us, bank conflicts 6.4 M -> 0.11 M).
//     Steady state, two rounds, TFLOP/s before -> lazy max -> both: 1x16x16384x256 1,053.1 ->
//     1,075.0 -> 1,088.9, causal 1,008.9 -> 1,034.3 -> 1,042.7 (+3.3 / +3.4 %); 4x16x8192x128
//     812.0 -> 816.8 -> 820.6, causal 756.0 -> 757.7 -> 765.4 (+1.1 / +1.3 %); 1x16x16384x128
//     851.5 -> 848.9 -> 849.7, causal 814.3 -> 819.5 -> 828.5; energy per launch -1 to -3 %.
//     rel_l2 0.0254-0.0261 -> 0.026-0.0265 non-causal, 0.021 -> 0.022 causal (tolerance 0.0625).
//     GPU tests (172,796 assertions), memcheck at d128 and d256 and racecheck at d128 (the
//     pre-pass way, seqlen_k 777) clean.
// Session 23 (results/nvidia-h100-80gb-hbm3/session23/, H100 SXM, default timing rule, two rounds):
//   - Call 4: the P offset 2^7 with a lazy slack of 1.75 (was 2^8 and 0.75; P <= 2^8.75 both):
//     4x16x8192x128 828.2 -> 831.5, causal 798.6 -> 806.9; 1x16x16384x128 864.3 -> 870.9, causal
//     863.6 -> 864.0; 1x16x16384x256 1,116.2 -> 1,125.0, causal 1,089.0 -> 1,106.5 (+0.0 to
//     +1.6 %; call 1's 2^7.25 / 1.5 and 2^6.75 / 2 the same sign, but not whole powers of two:
//     fa/fp8.h). GPU tests pass on it.
//   - Measured and not kept then (calls 2-3, speculative_softmax.patch there; kept at head_dim 128
//     since session 24, with slack 3.75, below): every tile after the first takes its
//     exponentials, row sums and e4m3 packing with the running max before the tile's max is
//     known (the FMNMX chain and two shuffles off the MUFU's path), and a warp whose
//     rows' max must rise redoes the tile from S; P(t+1) in a second register buffer, the loop
//     unrolled by two so the buffers alternate (a copy between them made ptxas serialize every
//     wgmma, C7513; at d256 in-kernel's 232 registers the second buffer did too, C7512). Output
//     bit-identical, GPU tests and sanitizers clean, and slower everywhere: 4x16x8192x128 850.0 ->
//     745.0, causal 806.9 -> 687.1; 1x16x16384x256 1,137.8 -> 1,049.5 (-8 to -15 %), with slack
//     1.75 -6 to -10 %. A warp has 16 rows, so its redo rate is far above a row's rise rate, and
//     the unrolled loop alone cost 2-3 % (16x16x1024x256, in-kernel, no speculation).
// Session 24 (results/nvidia-h100-80gb-hbm3/session24/, H100 SXM, default timing rule, two rounds,
// the bf16 rungs 7 and 9 in the same call):
//   - Call 1: the P offset 2^5 with slack 3.75 (a5) and 2^4 / 4.75 (a4) against 2^7 / 1.75 (h),
//     and session 23's speculative softmax on a5 (sp5). a5: +0.2 to +3.0 % (1x16x16384x256 1,119.6
//     -> 1,147.3, causal 1,090.0 -> 1,122.4); a4 no better; sp5 at head_dim 128 +5.8 to +7.4 % over
//     a5 (1x16x16384 880.2 -> 944.9, causal 865.3 -> 921.2; 4x16x8192 840.9 -> 897.7, causal 807.8
//     -> 854.9), at head_dim 256 -1.9 / -2.3 % (so speculative at head_dim 128 only, and d256 on
//     the rolled one-buffer loop). GPU tests pass on a5 and sp5; sanitizers clean on sp5.
//   - Call 2, as committed against h: 4x16x8192x128 827.4 -> 880.0, causal 792.6 -> 847.7;
//     1x16x16384x128 868.0 -> 941.2, causal 849.9 -> 911.4; 8x16x2048x128 (in-kernel) 650.7 ->
//     736.0, causal 564.2 -> 614.8; 32x16x512x128 466.1 -> 492.0, causal 283.8 -> 294.5;
//     1x16x16384x256 1,110.0 -> 1,134.5, causal 1,079.4 -> 1,107.4; 16x16x1024x256 736.3 -> 783.3,
//     causal 552.5 -> 571.4 (+2.2 to +13.1 %). Against the best bf16 rung: d128 1.38-1.43x, d256
//     1.52x. rel_l2 0.0262-0.0266 -> 0.0265-0.0268, causal 0.0218-0.0223 -> 0.0221-0.0227.
//     GPU tests (172,828 assertions) and memcheck / racecheck / synccheck clean. ncu at the base
//     clock (4x16x8192x128): tensor pipe 51.9 %, issue slots 41 %, 0.53 eligible warps a
//     scheduler: latency, not a saturated pipe.
//   - Call 3, measured and not kept (poly_exp2_and_d128_240.patch there): a share of the
//     speculative softmax's exponentials on the FMA pipe (exp2_poly: rounding trick and a degree-2
//     polynomial, as session 21 tried before the speculation), one 4-column group in 8 / 4 / 2:
//     -2.2 to -2.6 %, -6.5 to -7.8 %, -14 to -16 % at all four head_dim-128 points; the pre-pass
//     way at 24 / 240 registers (one TMA producer thread, as d256's): -1.5 to -2.1 %. The
//     exponentials' MUFU cycles are not the bound; every extra instruction on the consumers is.
//   - Call 4, not kept (token_d256_and_tree_sums.patch there): the row sums of each 32-key step
//     added apart before the running sum (chains of 8 FADDs instead of 32): -5.0 to -7.1 % at the
//     four d128 points; the issue token off at d256 (session 19: +1-2 %): level (1,167.0 ->
//     1,164.3, causal 1,139.3 -> 1,143.5). The tile max as a two-chain tree spilled 40 B.
// Session 25 (results/nvidia-h100-80gb-hbm3/session25/, H100 SXM, default timing rule, two rounds):
//   - Call 1 (ncu source view of session 24 call 2's profile, 4x16x8192x128 at the base clock):
//     the consumer loop's samples, softmax 63 % (wait 33 %, issuing 27 %, MUFU queue 12 % of them),
//     the S wait 15 %, the GEMM issue 12 % (8 QGMMA among ~50 uniform-datapath descriptor
//     instructions), the token 0.6 %. The softmax's 310 hot-path instructions: 70 FMNMX, 67 FADD,
//     64 FFMA, 64 MUFU.EX2, 32 F2FP.
//   - Call 2: the redo vote from P's bytes (softmax_pack_speculative), 310 -> 253 instructions:
//     4x16x8192x128 894.7 -> 906.7, causal 855.5 -> 867.0; 1x16x16384x128 935.1 -> 956.0, causal
//     919.3 -> 930.8; 8x16x2048x128 (in-kernel) 753.9 -> 766.2, causal 619.7 -> 628.3 (+1.3 to
//     +2.2 %); and with it the speculation on head_dim 256's pre-pass way, 1x16x16384x256 1,146.5
//     -> 1,250.4, causal 1,122.9 -> 1,221.2 (+9.1 / +8.8 %): 1.65 / 1.64x the best bf16 rung of the
//     call (755.8 / 744.9), head_dim 128 1.40-1.45x. rel_l2 unchanged (0.0265-0.0268, causal
//     0.0221-0.0227). GPU tests (176,936 assertions) and memcheck / racecheck / synccheck clean.
//   - Call 5, not kept (session25/split_s.patch): S(t+1) in two 64-key halves, two commit groups,
//     so the softmax starts on the first half (call 1: the S wait is 15 % of the loop): -1.1 to
//     +0.7 % at head_dim 128 (4 more wgmma issues a tile for ~128 cycles less wait). Masking the
//     second half in one branch made ptxas copy it on the other before its wgmma landed (C7514).
//   - Calls 6-7: the pre-pass ways without the issue token (kIssueToken) and head_dim 128's at
//     24 / 240 registers (WgmmaFp8D128Prepass has the numbers): head_dim 128 +0.5 to +3.7 %,
//     head_dim 256 +0.7 / +1.7 % (call 6, token alone: +2.3 / +1.7 %). Call 8, as committed, with
//     cuDNN FP8 in the same call: FP8 / best bf16 rung 1.44-1.47x at head_dim 128, 1.66 / 1.70x
//     at 256; rung 8 / cuDNN FP8 1.01-1.09x and 1.22 / 1.28x.
// Session 26 (results/nvidia-h100-80gb-hbm3/session26/, H100 SXM, default timing rule, two rounds):
//   - Calls 1-2: clock() at eight points of CTA 0's two consumer loops (session26/timeline.patch,
//     timeline.txt), 4x16x8192x128 on the pre-pass way: a ~1,900-cycle period per 128-key tile,
//     each warpgroup a serial chain of K wait ~95, GEMM issue 100-290, S wait ~210, softmax
//     1,090-1,280 (64 MUFU.EX2 need 512), Vᵀ / P·V waits ~75, loop ~95; the two warpgroups' S
//     landings 512 cycles apart (the tensor pipe runs one's S and P·V, then the other's S), their
//     softmaxes overlapping ~770 cycles. The issue token on: the same period (1,945). A token
//     around the softmax instead (softmax_token.patch: the two never overlap, S landings 1,024
//     apart): each softmax still ~1,200 cycles, period ~1,985, -8 to -12 %. A lone warp's
//     softmax is latency-bound, not MUFU-bound; hence a third warpgroup (WgmmaFp8D128M192).
//   - Call 1: K's and Vᵀ's descriptors as 32-bit low words (hopper::smem_desc_lo; ptxas rebuilt
//     each 64-bit descriptor from the shared base every trip): 45 -> 20 uniform-datapath
//     instructions around a tile's 8 QGMMA, -1.6 to +2.1 % (level), kept.
//   - Calls 3-4: head_dim 128's pre-pass way on 192 x 64 tiles, three consumer warpgroups
//     (WgmmaFp8D128M192 has the numbers). Call 4 with cuDNN FP8 in the same call: FP8 / best bf16
//     rung 1.55 / 1.51x at 4x16x8192x128, 1.46 / 1.48x at 1x16x16384x128, 1.67 / 1.64x at d256;
//     rung 8 / cuDNN FP8 1.03-1.27x.
// Session 27 (results/nvidia-h100-80gb-hbm3/session27/, H100 SXM, default timing rule):
//   - Call 1: 1x16x16384x128's 1,376 tiles are 10.4 waves; twice the heads (20.8 waves, the same
//     tiles) ran 1,007.4 -> 1,053.5 TFLOP/s (+4.6 %), causal 973.7 -> 998.5. Hence the tail split
//     (fa/splitkv.h): the last 56 tiles as 2 key chunks each. Calls 3-4, 7 against the build
//     without it: 1x16x16384x128 986.3 -> 1,028.2 (three rounds; +2.3 / +3.0 % in calls 3-4),
//     2x16x8192x128 938.8 -> 978.4, 1x4x8192x128 697.2 -> 878.5, 1x1x8192x256 708.9 -> 978.4;
//     unsplit shapes level (4x16x8192 993.4 -> 999.5, causal 911.1 -> 915.2).
//   - How it is built, and why (calls 2-4): one kernel for tiles and chunks (the decode and the
//     merge behind runtime tests) kept the main loop's 1,094 instructions but not their order, and
//     cost causal problems it never split 0.7-1.8 %; so the chunks are this kernel's second build
//     (kTailChunks), and the tiles' build is the measured one, SASS-identical but for its
//     tensor-map parameter offsets (FwdParams' new fields are last) and, when a split follows, its
//     launch_dependents. The chunks' launch is a programmatic dependent one (+0.6 to +2.2 % over
//     a plain launch after the tiles'), whose CTAs take SMs as the last wave frees them; a plain
//     one where every tile is split (launch_attention).
//   - Measured and not kept: each consumer warpgroup computing only the key tiles its own rows
//     see (the causal diagonal's last one or two, a head's rows past seqlen_q) and releasing the
//     rest unread: -6 to -7 % everywhere (call 3: the per-warpgroup tile count reordered the
//     loop); the 192x64 tile persistent (one CTA per SM, a snake order of tiles, the next Q loaded
//     under this tile, 124 B of spills outside the key loop): -1 to -3 % non-causal, -7 to -10 %
//     causal (call 5); the causal order's groups at 8 / 16 head slots: level (call 2).
//   - Call 8, the committed kernels with cuDNN in the same call: FP8 / best bf16 rung 1.54 / 1.49x
//     at 4x16x8192x128, 1.50 (1.497) / 1.47x at 1x16x16384x128, 1.65 / 1.65x at d256; rung 8 /
//     cuDNN FP8 1.08-1.26x.
// Session 28 (results/nvidia-h100-80gb-hbm3/session28/, H100 SXM): where a 192 x 64 CTA's time goes,
// from clock64 stamps at eight points of every CTA (a diagnostic build, session28's patch): 1,241-1,287
// cycles a 64-key tile, and ~8,300 outside them (1,540 between CTAs on an SM, ~1,900 until Q lands,
// ~830 until the first S, ~2,750 of epilogue a warpgroup, warpgroups ending 1,000-1,700 apart): 5 % of
// a CTA's slot at 1x16x16384 causal, 9 % at 4x16x8192 causal, 2.5-5 % non-causal. Not kept, each
// against this kernel in one call: the tile persistent with a global tile counter (a tile boundary of
// ~4,500 cycles, but the loop scheduled differently and 2.8-2.9 % slower a key tile: -2.5 to -4.7 %;
// with S's scale in a uniform register again -1.2 to -3.3 %); O stored from registers to global memory
// (-1 to -3 %, -10 % at 8x16x2048 causal); the next wave's Q prefetched into L2 (level to -2 %); the
// tile persistent over a static longest-first schedule in constant memory, the ring's barriers
// re-initialized between tiles (level, -1.1 to +0.5 %). Each moved the consumers' loop schedule, as
// every change here has.
// Session 29 call 1 (H100 SXM, two rounds): that static schedule with each tile's decoded coordinates
// and S's scale in the constant table (loop 0.88 similar to this one's): level to -2.4 % (1x16x16384
// causal 955.7 -> 937.0), and a GPU test failed at a tail split. Not kept. A persistent tile with
// this loop's schedule would save ~2,500 cycles a CTA, ~1.5 % at 1x16x16384 causal: less than that
// point's 2-3 % gap to issue #11's 1.5x.
// Session 34 (results/nvidia-h100-80gb-hbm3/session34/, H100 SXM, scripts/ab.py, three rounds):
//   - Calls 1-2: the 192 x 64 tile's unmasked key tiles in a loop of their own (WgmmaFp8D128M192
//     has the numbers): level to +2.6 %, kept.
//   - Call 2, not kept (session34/fma_exp2.patch): one exponential in 4 / in 8 of the speculative
//     softmax on the FMA pipe (a degree-2 polynomial for 2^f, f = x - floor(x), and floor(x) added
//     to the exponent field: 8 FMA / ALU instructions for one MUFU.EX2, relative error 2.7e-3),
//     since the tensor pipe and MUFU each have ~61 % of a 64-key tile's ~1,260 cycles (3 x 256 of
//     each): -5.2 % / -1.1 % (geometric means over 4x16x8192, 2x16x8192 and 1x16x16384, causal
//     and not; 1x16x16384 1,024.7 -> 968.8 / 1,021.4). The chains are not waiting on MUFU's
//     throughput; 48 / 24 more instructions a tile on each warp cost more than the exponentials
//     they move (session 4 found the same on the 128 x 128 tile). GPU tests passed on it.
//   - Call 3, not kept (session34/drain_idle_warpgroups.patch): a consumer warpgroup whose 64 rows
//     are all past seqlen_q (one of the last block's three at 8,192 rows, two at 16,384) handing
//     back each ring slot as it fills instead of running the key loop. Against the build without
//     it: level at 1x16x12288 (no idle warpgroup; its loops 0.91 / 0.97 similar), 4x16x8192 -0.7 /
//     +0.5 %, 2x16x8192 +0.2 % / level, 1x16x16384 -2.0 / -2.1 %. The idle warpgroups' wgmmas read
//     Q rows the copy engine filled with zeros, which cost the power cap little.
//   - Call 4 (ncu, base clocks): the V pre-pass is 46 us against the attention kernel's 2,397 /
//     1,311 us at 4x16x8192x128 (1.9 % non-causal, 3.4 % causal; it moves 67 MB in and out at
//     ~2.9 TB/s, HBM's rate) and 23 us against 2,360 / 1,244 at 1x16x16384x128 (1.0 / 1.8 %):
//     the size of issue #11's remaining gap at the causal points. Hiding it needs the attention
//     CTAs to start on heads whose Vᵀ is ready while a few SMs transpose the rest (per-chunk
//     ready flags: generic stores, release; acquire, fence.proxy.async.global, then the TMA),
//     and a transposer that streams at ~1 TB/s from a handful of SMs (bulk copies, not the
//     4,096 short CTAs of today, which need the whole GPU for their memory parallelism). Under
//     the 700 W cap it cannot buy all of that time: the attention kernel runs at the cap, so
//     hiding the pre-pass returns only the power the pre-pass leaves unused while it runs alone.
//     Not kept (session 36 call A, an H200; results/nvidia-h200/session35/next_vt_stream.patch):
//     Vᵀ streamed by 16 CTAs of 4 x 256 threads behind per-(batch, K/V head, 128-key chunk) ready
//     flags, the attention kernel their programmatic dependent, on the 192 x 64 tile. GPU tests,
//     memcheck, racecheck and synccheck clean, but three rounds against the build without it
//     measured 0.970-0.997x (geometric mean 0.985; 4x16x8192x128 1,018.4 -> 987.7, causal 926.8
//     -> 917.7; 1x16x16384x128 1,052.3 -> 1,033.8). The attention CTA takes the whole register
//     file (512 threads x 128), so the streaming CTAs (1,024 x 32) hold 16 SMs to themselves
//     while they stream (12 % of the GPU, to hide 1-3 % of the time), and the non-causal rows
//     ran 10-28 MHz slower.
//   - Call 5 (five rounds; ab.py --versus, one build's own rows): FP8 / best bf16 1.501 / 1.481x
//     at 4x16x8192x128 (1,025.2 / 932.4 against rung 9's 682.8 / 629.6), 1.523 / 1.513x at
//     1x16x16384x128, 1.668 / 1.662x at 1x16x16384x256.
// ptxas at the bottom, by the instance table.

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/launch.cuh"
#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/tail_merge.cuh"
#include "device/wgmma_steps.cuh"  // load_key_rows: the K/V TMA loader of every Hopper rung
#include "fa/fp8.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

// ---- The tile: one named config, every derived size in Fp8Traits ----

struct WgmmaFp8D128 {
    using T = __nv_fp8_e4m3;
    static constexpr int kHeadDim = 128;
    // Rung 7's 2 x 64 query rows: O 64 + S 64 + P 16 registers per consumer thread.
    static constexpr int kConsumerWarpgroups = 2;
    // 128 keys: one Vᵀ row is one 128-byte swizzle row, S = Q·Kᵀ one m64n128 per k-step.
    static constexpr int kBlockN = 128;
    // K/Vᵀ ring depth: 4 x 32 KB. The producer loads kLookahead tiles ahead of the one it
    // transposes and may not run further ahead than kStages - 2 (Fp8Traits' deadlock rule).
    static constexpr int kStages = 4;
    static constexpr int kLookahead = 2;
    // 384 threads enter with 168 registers; 128·72 + 256·216 = 384·168. The transpose keeps 16
    // loaded words and up to 16 built ones live beside its addresses: ptxas spilled it at 56 (36 B)
    // and 64 (8 B), not at 72 (the transpose before its offsets were hoisted; the current one
    // keeps 12 offsets and 2 byte selectors for the whole kernel: no spill at 72 either). The
    // consumers' live set is rung 7's minus 16 P registers: no spill at 208 either.
    static constexpr int kProducerRegs = 72;
    static constexpr int kConsumerRegs = 216;
    // The producer's transpose: LDS.32 rows and a 4x4 byte transpose (transpose_v,
    // TransposeLaneLds). ldmatrix.trans / stmatrix (TransposeLaneLdsm: 56 fewer instructions per
    // lane and tile) measured -3 to -9 % here (session 13 call 4): ptxas scheduled the consumers'
    // softmax differently around it (their source unchanged), 2.43 -> 2.81 M cycles at the base clock.
    static constexpr bool kTransposeLdsm = false;
    // Q's A fragments in registers for the whole key loop (S = Q·Kᵀ as wgmma RS: 16 registers, no
    // spill at 216), so the S GEMM reads only K from shared memory: +3.2 to +3.8 % at 8k-16k keys,
    // -3 % energy per launch, level at 512 (session 21 call 4).
    static constexpr bool kQInRegisters = true;
    // The V pre-pass from 4,096 query rows per K/V head, 8,192 causal (use_vt_prepass).
    static constexpr long long kVtPrepassMinRows = 4096;
    // Exponentials before the row max (softmax_pack_speculative): P(t+1) packed beside P(t), 16
    // registers more, no spill at 216. Session 24 call 1 (H100 SXM, two rounds, against the same
    // constants without it): 4x16x8192 840.9 -> 897.7, causal 807.8 -> 854.9; 1x16x16384 880.2 ->
    // 944.9, causal 865.3 -> 921.2 (+5.8 to +7.4 %). Session 23 measured it -6 to -15 % at slack
    // 0.75 / 1.75, where a warp redid 12-23 % of its tiles; at 3.75 the model says 0.15 %.
    static constexpr bool kSpeculativeSoftmax = true;
    // The consumers' issue token (rung 7's ping-pong: a warpgroup issues its GEMMs only after the
    // other has issued its own): kept on the in-kernel way, where session 19 measured it +2 to +5 %
    // at head_dim 128; off on the pre-pass ways since session 25 (WgmmaFp8D128Prepass).
    static constexpr bool kIssueToken = true;
    // One key loop with the mask test in every trip (rung 7's kUnmaskedLoop, wgmma_traits.cuh).
    static constexpr bool kUnmaskedLoop = false;
};

// Head_dim 128 on the pre-pass way, whose producer is one TMA thread, as WgmmaFp8D256Prepass: its
// registers go to the consumers (24 / 240), and the issue token is off. Session 25 call 6 (H100 SXM,
// default timing rule, two rounds, against 72 / 216 with the token): 24 / 240 alone +1.4 to +2.0 %
// at 4x16x8192x128 and 1x16x16384x128, causal and not (912.7 -> 931.0, 879.0 -> 891.6; 953.3 ->
// 969.6, 943.2 -> 958.2), where session 21 (-0.4 to -1.3 %) and session 24 (-1.5 to -2.1 %, the
// tile max's FMNMX chain still in the softmax) had measured it lower; the token off alone +0.4 to
// +2.7 % (978.6 at 1x16x16384 non-causal), now that the byte vote (softmax_pack_speculative)
// shortened the softmax the token's strict alternation waited on. Both together (call 7, against
// the same build with both): 4x16x8192 906.2 -> 932.9, causal 873.7 -> 891.8; 1x16x16384 950.6 ->
// 985.4, causal 944.5 -> 949.3 (+0.5 to +3.7 %). GPU tests and the three sanitizers clean.
struct WgmmaFp8D128Prepass : WgmmaFp8D128 {
    static constexpr int kProducerRegs = 24;
    static constexpr int kConsumerRegs = 240;
    static constexpr bool kIssueToken = false;
};

// Head_dim 128's pre-pass way on three consumer warpgroups: 192 query rows x 64 keys a tile (its own
// registry row, the default where the pre-pass rule holds: d128_prepass_rows). Session 26's clock()
// timelines (calls 1-2) showed each consumer warpgroup's loop is one serial latency chain: at
// 4x16x8192 a ~1,900-cycle period per 128-key tile of which its softmax takes ~1,100-1,300 cycles
// (64 MUFU.EX2 need 512), the S wait ~210, the GEMM issue 100-290, with the tensor pipe half idle;
// the two chains' softmaxes overlapped ~770 cycles without slowing each other, and taking turns at
// the softmax (a named-barrier token, call 2) left each ~1,200 and lost 8-12 %. A third chain per
// sub-partition needs a third warpgroup, which fits only at 64 keys: O 64 + S 32 + P 2 x 8 + Q 16
// registers, no spill at 160 (128 x 24 + 384 x 160 = 64,512 of 65,536). The in-kernel transpose
// needs a producer of 72 registers, which leaves 144: that way keeps 128 x 128. Call 3 (H100 SXM,
// default rule, two rounds, against the 128 x 128 pre-pass way): 4x16x8192 922 -> 972 TFLOP/s,
// causal 875 -> 903 (+5.5 / +3.2 %); 4x16x4096 862 -> 878, causal 744 -> 749; 1x16x16384 963 -> 967,
// causal 943 -> 946, where 86 row blocks x 16 heads are 10.4 waves of 132 CTAs (128 rows: 15.5):
// per wave-slot it is +3.7 % there too. Call 4 (both tiles as registry rows, same rule): 4x16x8192
// 933.2 -> 1,000.9, causal 886.9 -> 911.3; 1x16x16384 968.1 -> 984.5, causal 953.7 -> 960.4. It runs
// at a 30-90 MHz lower clock (more work per cycle at the 700 W cap). GPU tests (the whole matrix
// runs this row) and memcheck / synccheck / racecheck clean (calls 3, 4). Call 5, not kept: 6 ring
// stages (lookahead 4) level (-0.4 to +0.4 %); the issue token on (a ring over the three
// warpgroups) -1.4 to -3.9 %.
struct WgmmaFp8D128M192 : WgmmaFp8D128Prepass {
    static constexpr int kConsumerWarpgroups = 3;
    static constexpr int kBlockN = 64;
    static constexpr int kConsumerRegs = 160;
    // The key tiles that need no mask in a loop of their own, whose softmax has no mask test (rung
    // 7's at head_dim 64): 847 SASS instructions for two batches against 1,093. Session 34 calls 1-2
    // (H100 SXM, scripts/ab.py, three rounds each, against the one loop): 4x16x8192 1,009.4 ->
    // 1,016.2 / 999.4 -> 1,025.2, causal 920.0 -> 925.1 / 908.5 -> 922.3; 1x16x16384 1,037.8 ->
    // 1,047.5 / 1,024.7 -> 1,040.6, causal 975.1 -> 967.7 / 962.6 -> 968.2; 2x16x8192 (call 2)
    // 986.5 -> 981.8, causal 904.0 -> 896.4: +0.35 / +0.8 % geometric means, level to +2.6 %;
    // at 4x16x8192 and 1x16x16384 call 3 +1.1 to +3.2 %, call 5 (five rounds) +0.1 to +0.5 %.
    static constexpr bool kUnmaskedLoop = true;
};

struct WgmmaFp8D256 {
    using T = __nv_fp8_e4m3;
    static constexpr int kHeadDim = 256;
    // 2 x 64 query rows: O 128 + S 32 + P 8 registers per consumer thread (at 128 keys S would be
    // 64 and P 16: 208 live before a single address).
    static constexpr int kConsumerWarpgroups = 2;
    // 64 keys: shared memory decides. A 128-key ring slot of K, Vᵀ or raw V is 32 KB at d = 256, and
    // the producer's lookahead rule needs kStages >= 3 with kLookahead + 1 raw slots: 32 (Q) + 3·32
    // + 3·32 + 2·32 = 288 KB > 227. At 64 keys every slot is 16 KB: 32 + 64 + 64 + 48 = 208 KB with
    // rung 8's d128 ring (4 stages, lookahead 2). A Vᵀ row is then 64 key bytes, 64-byte swizzled.
    // The tensor-core work per tile is d128's (2·128·64·256·2 = 8.4 MFLOP), the softmax half of it.
    static constexpr int kBlockN = 64;
    static constexpr int kStages = 4;
    static constexpr int kLookahead = 2;
    // The producer's transpose moves the same 16 KB a tile as at d128 (two 16-key x 128-column
    // units per warp): its 72 registers hold. The consumers' live set is O 128 + S 32 + P 8.
    // Q in registers is 32 more: ptxas spills 96 B at 72 / 216, none at 40 / 232 (the ldmatrix
    // transpose needs no more than 40 a producer thread). Session 22 call 1 (H100 SXM, steady,
    // two rounds) against 72 / 216 with Q from shared memory: 32x16x512 572.2 -> 594.1, causal
    // 379.0 -> 386.0; 16x16x1024 694.5 -> 728.3, causal 519.7 -> 530.4; 8x16x2048 causal
    // 662.4 -> 684.3 (+1.8 to +4.9 %, energy per launch -2 to -4 %).
    static constexpr int kProducerRegs = 40;
    static constexpr int kConsumerRegs = 232;
    // ldmatrix.trans / stmatrix (TransposeLaneLdsm): +2.3 to +3.7 % against the LDS.32 transpose,
    // 4.33 -> 4.13 M cycles at the base clock (session 13 call 4).
    static constexpr bool kTransposeLdsm = true;
    static constexpr bool kQInRegisters = true;
    // The V pre-pass from half of head_dim 128's rows (use_vt_prepass has the numbers).
    static constexpr long long kVtPrepassMinRows = 2048;
    // At 232 registers P(t+1) beside P(t) (8 more) left ptxas too few to keep the wgmmas
    // asynchronous (C7512: it serialized them): the in-kernel way packs P after the P·V wait.
    static constexpr bool kSpeculativeSoftmax = false;
    // The token stays on here: session 19 measured it off +1-2 % (within twice the rounds' spread)
    // on this way, before the pre-pass existed; not measured since.
    static constexpr bool kIssueToken = true;
    static constexpr bool kUnmaskedLoop = false;  // one key loop (WgmmaFp8D128's)
};

// Head_dim 256 on the pre-pass way, whose producer is one TMA thread: its registers go to the
// consumers (24 / 240: 128·24 + 256·240 = 384·168), which hold Q's A fragments (32 registers, no
// spill). Session 21 call 5 (H100 SXM, default timing rule, two rounds): 1x16x16384x256 1,009.8 ->
// 1,093.1 TFLOP/s, causal 939.7 -> 1,060.5, against cuDNN FP8's 1,054.2 / 981.5 in the same call.
// (24 / 240 alone measured +0.4 to +1.3 % in session 20; at d128 with Q in registers, -0.4 to
// -1.3 %, session 21 call 6: d128 keeps 72 / 216 on both ways.)
struct WgmmaFp8D256Prepass : WgmmaFp8D256 {
    static constexpr int kProducerRegs = 24;
    static constexpr int kConsumerRegs = 240;
    // Speculative too since session 25 (it fits at 240, no C7512), once its vote reads P's bytes
    // instead of the tile max (softmax_pack_speculative): call 2 (H100 SXM, default rule, two
    // rounds) 1x16x16384x256 1,146.5 -> 1,250.4 TFLOP/s, causal 1,122.9 -> 1,221.2 (+9.1 / +8.8 %).
    // With the FMNMX vote it had measured -1.9 / -2.3 % (session 24 call 1): the tile max's chain
    // was what the speculation moved off the path, and at 64 keys a tile it cost as much as it hid.
    static constexpr bool kSpeculativeSoftmax = true;
    // The issue token off since session 25 (call 6: 1x16x16384x256 1,250.0 -> 1,279.3, causal
    // 1,234.9 -> 1,256.3, +2.3 / +1.7 %; session 24, before the byte vote: level).
    static constexpr bool kIssueToken = false;
};

template <class Config, bool kPrepass>
struct Fp8Traits : Config {
    using typename Config::T;
    using Config::kBlockN;
    using Config::kConsumerRegs;
    using Config::kConsumerWarpgroups;
    using Config::kHeadDim;
    using Config::kLookahead;
    using Config::kProducerRegs;
    using Config::kStages;
    using Config::kTransposeLdsm;
    using Config::kQInRegisters;

    static constexpr int kWarpgroupRows = 64;  // wgmma's M
    static constexpr int kBlockM = kWarpgroupRows * kConsumerWarpgroups;
    static constexpr int kNThreads = 128 * kConsumerWarpgroups;  // consumer threads: the registry's num_threads
    static constexpr int kLaunchThreads = kNThreads + 128;       // + the producer warpgroup
    static constexpr int kConsumerWarps = kNThreads / 32;        // arrivals that release a ring slot
    static constexpr int kProducerWarps = 4;                     // arrivals that publish a Vᵀ tile
    // Where Vᵀ comes from (the header): the pre-pass's copy, TMA-loaded like K (true), or the
    // producer warpgroup's transpose of raw V tiles in shared memory (false).
    static constexpr bool kVtPrepass = kPrepass;

    // Inputs: 1 byte per element, a 128-byte swizzle row holds 128 columns.
    static constexpr int kAtomCols = 128;
    static constexpr int kChunks = kHeadDim / kAtomCols;       // 128-column blocks of a Q or K row (1)
    static constexpr int kQChunkBytes = kBlockM * 128;
    static constexpr int kKVChunkBytes = kBlockN * 128;
    static constexpr int kQBytes = kChunks * kQChunkBytes;     // 16 KB
    static constexpr int kKBytes = kChunks * kKVChunkBytes;    // one K slot, and one raw V slot: 16 KB
    // One Vᵀ slot: head_dim rows of kBlockN key bytes, stored as up to two blocks: keys 0..127 in
    // rows of 128 bytes, 128-byte swizzled (block A), then the rest, 64 keys, in rows of 64 bytes,
    // 64-byte swizzled (block B). 128 keys: A alone; 64 keys (d256): B alone; 192: both.
    static constexpr int kVtAKeys = kBlockN >= 128 ? 128 : 0;
    static constexpr int kVtBKeys = kBlockN - kVtAKeys;
    static constexpr int kVtBOffset = kHeadDim * kVtAKeys;     // block B inside the slot
    static constexpr int kVtBytes = kHeadDim * kBlockN;
    // Raw V tiles in flight + the one transposed; none with the pre-pass.
    static constexpr int kRawSlots = kVtPrepass ? 0 : kLookahead + 1;
    // O (bf16): 64 columns per 128-byte row, staged for the TMA store in the raw V slots, dead by
    // then (the last transpose finished before the last v_full completed); what does not fit there
    // (d256: 64 KB of O, 48 KB of raw slots) goes to Q's first chunks, whose rows of each warpgroup
    // only that warpgroup reads, and it has waited for its last S = Q·Kᵀ.
    static constexpr int kOutCols = 64;
    static constexpr int kOutChunks = kHeadDim / kOutCols;
    static constexpr int kOutChunkBytes = kBlockM * 128;
    // With the pre-pass the raw region is O's staging alone, all of it (no spill into Q).
    static constexpr int kRawBytes = kVtPrepass ? kOutChunks * kOutChunkBytes : kRawSlots * kKBytes;
    static constexpr int kOutChunksInRaw = kRawBytes / kOutChunkBytes;

    // The producer's transpose (transpose_v): units of 16 keys x 128 head_dim columns, the
    // tile's kKeyGroups key groups in each of V's kChunks 128-column blocks, numbered u = group +
    // kKeyGroups·block; warp w takes units w + 4·gi, gi < kUnitsPerWarp (1 to 3).
    static constexpr int kKeyGroups = kBlockN / 16;
    static constexpr int kUnitsPerWarp = kKeyGroups * kChunks / kProducerWarps;

    static constexpr int kAccS = kBlockN / 2;        // fp32 of S per thread
    static constexpr int kAccO = kHeadDim / 2;       // fp32 of O per thread
    static constexpr int kKStepsQK = kHeadDim / 32;  // k32 steps of Q·Kᵀ
    static constexpr int kKStepsPV = kBlockN / 32;   // k32 steps of P·V
    static constexpr int kPRegs = kKStepsPV * 4;     // P as e4m3 A fragments: 4 b32 per k-step
    static constexpr int kQRegs = kQInRegisters ? 4 * kKStepsQK : 1;  // Q's A fragments (kQInRegisters)

    // Q | K slots | Vᵀ slots | raw V slots | barriers, every operand 1024-aligned from the base.
    static constexpr int kOffQ = 0;
    static constexpr int kOffK = kOffQ + kQBytes;
    static constexpr int kOffVt = kOffK + kStages * kKBytes;
    static constexpr int kOffRaw = kOffVt + kStages * kVtBytes;
    static constexpr int kOffBar = kOffRaw + kRawBytes;
    // q_full, k_full[kStages], v_full[kStages], raw_full[kRawSlots], empty[kStages]
    static constexpr int kBarriers = 1 + 3 * kStages + kRawSlots;
    static constexpr int kSmemBytes = kOffBar + 8 * kBarriers + 1024;  // + slack to round the base up

    // Named barriers (0 is __syncthreads): each consumer warpgroup's epilogue, the issue token of
    // each, and the producer warpgroup's own.
    static constexpr int kEpilogueBar = 1;
    static constexpr int kSchedBar = kEpilogueBar + kConsumerWarpgroups;
    static constexpr int kProducerBar = kSchedBar + kConsumerWarpgroups;
    static constexpr float kPScaleLog2 = kFp8PScaleLog2;  // P is scaled by 2^this before e4m3 (header)
    // A row's max is raised only when a tile's exceeds it by more than this (online_softmax_tile's
    // kLazyMax): P <= 2^8.75 = 430.5 < 448, e4m3's largest finite value (fa/fp8.h).
    static constexpr float kMaxSlackLog2 = kFp8MaxSlackLog2;
    // ... and wgmma::rescale_o's warp vote skips O's rescale where every factor is exactly 1 (the
    // row max did not rise): whole warps skip the FMULs on the path to their next wgmma. Rung 8 has
    // voted since session 4; the lazy max since session 22.
    static constexpr bool kLazyMax = true;
    // The running max from -inf with its guards (wgmma_steps.cuh's online_softmax_tile,
    // kNegInfStart): without them this loop measured 0.7-1.9 % slower (session 31 call 1).
    static constexpr bool kNegInfStart = true;

    static constexpr int kEntryRegs = (65536 / kLaunchThreads) / 8 * 8;

    static_assert(sizeof(T) == 1, "e4m3 operands");
    static_assert(kHeadDim == 128 || kHeadDim == 256, "O += P·V uses wgmma N = head_dim: hopper.cuh has e4m3 N = 128, 256");
    static_assert(kVtBKeys == 0 || kVtBKeys == 64, "a Vᵀ row: 128 keys of 128-byte rows, then at most 64 of 64-byte rows");
    static_assert(!kVtPrepass || ((kBlockN == 64 || kBlockN == 128) && kHeadDim <= 256),
                  "a pre-pass Vᵀ slot is one TMA box of one swizzle width (encode_fp8_vt_map), <= 256 rows");
    static_assert(kKeyGroups % 4 == 0 && kUnitsPerWarp * kProducerWarps == kKeyGroups * kChunks,
                  "whole 16-key x 128-column units, as many for every producer warp");
    static_assert(kOutChunks <= kOutChunksInRaw + kChunks, "O's staging fits the raw V slots and Q");
    static_assert(kOffK % 1024 == 0 && kKBytes % 1024 == 0 && kVtBytes % 1024 == 0 && kQChunkBytes % 1024 == 0,
                  "TMA destinations and wgmma operands start on 1024-byte swizzle-pattern boundaries");
    // The producer waits, before loading tile t + kLookahead, for the release of tile
    // t + kLookahead - kStages, which the overlapped consumers give only once V of the tile after
    // it is transposed; it has transposed tiles < t. So t + kLookahead - kStages + 1 < t.
    static_assert(kLookahead >= 1 && kLookahead <= kStages - 2, "the producer's lookahead cannot deadlock");
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
    static_assert(kProducerBar <= 15, "16 hardware named barriers");
    static_assert(kProducerRegs <= kEntryRegs && kConsumerRegs >= kEntryRegs, "dec / inc directions");
    static_assert(128 * kProducerRegs + kNThreads * kConsumerRegs <= kLaunchThreads * kEntryRegs,
                  "setmaxnreg.inc must be satisfiable from what setmaxnreg.dec released");
    static_assert((2 * kBlockM) % kNThreads == 0, "fa-bench tile rule (registry.cpp)");
};

// One CTA's shared memory: addresses of the operands and barriers.
template <class Tr>
struct Fp8Smem {
    uint32_t base, q, k, vt, raw, bar_q, bar_k0, bar_v0, bar_raw0, empty0;

    __device__ __forceinline__ explicit Fp8Smem(unsigned char* smem)
        : base((ptx::smem_u32(smem) + 1023u) & ~1023u),
          q(base + Tr::kOffQ),
          k(base + Tr::kOffK),
          vt(base + Tr::kOffVt),
          raw(base + Tr::kOffRaw),
          bar_q(base + Tr::kOffBar),
          bar_k0(bar_q + 8),
          bar_v0(bar_k0 + 8 * Tr::kStages),
          bar_raw0(bar_v0 + 8 * Tr::kStages),
          empty0(bar_raw0 + 8 * Tr::kRawSlots) {}

    // Thread 0, before the CTA barrier that publishes them.
    __device__ __forceinline__ void init_barriers() const {
        ptx::mbarrier_init(bar_q, 1);
#pragma unroll
        for (int s = 0; s < Tr::kStages; ++s) {
            ptx::mbarrier_init(bar_k0 + 8 * s, 1);                      // the TMA thread's expect_tx
            // each transposing warp, or with the pre-pass the TMA thread's expect_tx
            ptx::mbarrier_init(bar_v0 + 8 * s, Tr::kVtPrepass ? 1 : Tr::kProducerWarps);
            ptx::mbarrier_init(empty0 + 8 * s, Tr::kConsumerWarps);     // each consumer warp
        }
#pragma unroll
        for (int r = 0; r < Tr::kRawSlots; ++r) ptx::mbarrier_init(bar_raw0 + 8 * r, 1);
        hopper::fence_mbarrier_init();
    }
};

// ---- The producer warpgroup ----

template <class Tr>
__device__ __forceinline__ void load_q(const Fp8Smem<Tr>& sm, const CUtensorMap* tm_q, const BlockCoords& blk,
                                       const FwdParams& p) {
    hopper::mbarrier_arrive_expect_tx(sm.bar_q, Tr::kQBytes);
#pragma unroll
    for (int c = 0; c < Tr::kChunks; ++c)
        hopper::tma_load_5d(sm.q + c * Tr::kQChunkBytes, tm_q, sm.bar_q, c * Tr::kAtomCols, 0,
                            blk.m_start / rows_per_position(p), blk.q_slot, blk.batch);
}

// Key tile t: K into ring slot t % kStages (k_full), raw V into staging slot t % kRawSlots (raw_full).
template <class Tr>
__device__ __forceinline__ void load_kv(const Fp8Smem<Tr>& sm, int t, const CUtensorMap* tm_k, const CUtensorMap* tm_v,
                                        const BlockCoords& blk) {
    const int s = t % Tr::kStages, r = t % Tr::kRawSlots;
    const int row = (blk.key_tile_begin + t) * Tr::kBlockN;
    wgmma::load_key_rows<Tr>(sm.k + s * Tr::kKBytes, tm_k, sm.bar_k0 + 8 * s, row, blk);
    wgmma::load_key_rows<Tr>(sm.raw + r * Tr::kKBytes, tm_v, sm.bar_raw0 + 8 * r, row, blk);
}

// Where unit w + 4·gi of a producer warp lives, for both transposes: key group w + g_off of V's
// column block `block` (kKeyGroups is a multiple of 4 and w < 4, so neither depends on w). Its raw
// rows are 16·g_off rows further, in the block's own kBlockN x 128-byte box. Its Vᵀ rows are
// 128·block + d: in block A (128-byte rows) chunk w + g_off, g_off 0 or 4 flipping bit 2 of the
// chunk (bit 6 of the address); block B holds chunks 0-3, so there g_off - kGroupsA is 0. A row 128
// further keeps its swizzle phase in both blocks. st_a / st_b: the lane's offset of its row d
// inside the unit's block A / block B rows, chunk `warp` swizzled.
template <class Tr>
struct TransposeUnit {
    static constexpr int kGroupsA = Tr::kVtAKeys / 16;
    int g_off, block;

    __device__ __forceinline__ explicit TransposeUnit(int gi)
        : g_off((4 * gi) % Tr::kKeyGroups), block((4 * gi) / Tr::kKeyGroups) {}

    __device__ __forceinline__ uint32_t raw(uint32_t raw_slot) const {
        return raw_slot + static_cast<uint32_t>(block * Tr::kKVChunkBytes + g_off * 16 * 128);
    }
    __device__ __forceinline__ uint32_t vt(uint32_t vt_slot, uint32_t st_a, uint32_t st_b) const {
        return g_off < kGroupsA ? vt_slot + block * 128 * 128 + (st_a ^ (g_off * 16u))
                                : vt_slot + Tr::kVtBOffset + block * 128 * 64 + st_b;
    }
};

// One raw V tile (rows = keys, 128 bytes of head_dim each, 128-byte swizzled as TMA wrote it) into
// Vᵀ (rows = head_dim, 128 key bytes each, 128-byte swizzled as wgmma reads it), keys permuted by
// σ inside each 16-byte chunk (header). The head_dim-128 instance's transpose (kTransposeLdsm off;
// the configs say why each instance has the one it has). Warp w takes its units (TransposeUnit);
// lane l takes head_dim columns 4l..4l+3: 16 loads of one key row's 4 bytes (a warp reads a whole
// 128-byte row: conflict-free), then per column one 16-byte chunk of Vᵀ built with byte permutes.
// The 4 columns
// are stored in a lane-rotated order (column 4l + ((i + l/2) % 4) at store i), so the 8 lanes of
// each store phase hit 8 different rows mod 8, i.e. 8 different swizzled chunk positions:
// conflict-free too (in column order, lanes 0-7 would hit only rows 4l mod 8 and collide 4-way).
//
// Every address is a slot base plus a per-lane offset fixed for the whole kernel (TransposeLaneLds):
// a group starts on a multiple of 8 rows, so a key's swizzle phase is its index inside the group
// mod 8, and a Vᵀ chunk's swizzle is an XOR of the 1024-aligned slot address with the group. Written
// as key % 8 of a runtime group, ptxas emitted a signed modulo per load: 196 SASS instructions per
// group, 128 of them address arithmetic around 16 LDS, 48 PRMT and 4 STS.128.
template <class Tr>
struct TransposeLaneLds {
    uint32_t ld[8];  // raw V: row k of the warp's first unit (k < 8), swizzled, + this lane's 4 bytes
    uint32_t st_a[4];  // Vᵀ block A (128-byte rows): store i's row, chunk `warp` swizzled
    uint32_t st_b[4];  // Vᵀ block B (64-byte rows): the same, from the block's start
    uint32_t sel_p, sel_q;  // byte picks: columns (rot, rot+1) and (rot+2, rot+3) of two key words

    __device__ __forceinline__ TransposeLaneLds(int warp, int lane) {
        const int unit = lane / 4, byte = 4 * (lane % 4), rot = (lane >> 1) & 3;
#pragma unroll
        for (int k = 0; k < 8; ++k)
            ld[k] = static_cast<uint32_t>(16 * warp * 128 + k * 128 + ((unit ^ k) << 4) + byte);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            // Row d of a block at d·R bytes (R = 128 in A, 64 in B); its 16-byte chunk c sits at
            // c ^ (address bits [7, 10) for 128-byte swizzling, [7, 9) for 64-byte), i.e. d % 8 in
            // A and (d / 2) % 4 in B. Lanes 0-7 of a store phase cover 8 different d mod 8: 8
            // different 16-byte slots of the bank rows either way.
            const int d = 4 * lane + ((i + rot) & 3);
            st_a[i] = static_cast<uint32_t>(d * 128 + ((warp ^ (d & 7)) << 4));
            st_b[i] = static_cast<uint32_t>(d * 64 + ((warp ^ ((d >> 1) & 3)) << 4));
        }
        uint32_t pick[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const uint32_t jj = static_cast<uint32_t>((rot + k) & 3);
            pick[k] = jj | ((jj + 4) << 4);  // byte jj of the first word, then of the second
        }
        sel_p = pick[0] | (pick[1] << 8);
        sel_q = pick[2] | (pick[3] << 8);
    }
};

template <class Tr>
__device__ __forceinline__ void transpose_v(uint32_t raw, uint32_t vt, const TransposeLaneLds<Tr>& tl) {
    uint32_t ld[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) ld[k] = raw + tl.ld[k];
#pragma unroll
    for (int gi = 0; gi < Tr::kUnitsPerWarp; ++gi) {
        const TransposeUnit<Tr> unit(gi);
        const uint32_t raw_off = unit.raw(0);
        uint32_t rows[16];
#pragma unroll
        for (int i = 0; i < 16; ++i) rows[i] = ptx::ld_shared_b32(ld[i % 8] + raw_off + (i / 8) * 1024);
        // Per word t of the chunk, keys 2t, 2t+1, 8+2t, 9+2t of the group (σ): a 4x4 byte transpose
        // of those 4 words into the 4 columns' words, 8 permutes (3 per column word before: 12).
        uint32_t w[4][4];
#pragma unroll
        for (int t = 0; t < 4; ++t) {
            const uint32_t p_ab = __byte_perm(rows[2 * t], rows[2 * t + 1], tl.sel_p);
            const uint32_t p_cd = __byte_perm(rows[8 + 2 * t], rows[9 + 2 * t], tl.sel_p);
            const uint32_t q_ab = __byte_perm(rows[2 * t], rows[2 * t + 1], tl.sel_q);
            const uint32_t q_cd = __byte_perm(rows[8 + 2 * t], rows[9 + 2 * t], tl.sel_q);
            w[0][t] = __byte_perm(p_ab, p_cd, 0x5410);
            w[1][t] = __byte_perm(p_ab, p_cd, 0x7632);
            w[2][t] = __byte_perm(q_ab, q_cd, 0x5410);
            w[3][t] = __byte_perm(q_ab, q_cd, 0x7632);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i)
            ptx::st_shared_v4_b32(unit.vt(vt, tl.st_a[i], tl.st_b[i]), make_uint4(w[i][0], w[i][1], w[i][2], w[i][3]));
    }
}

// The same with ldmatrix.trans and stmatrix (kTransposeLdsm, session 13): Vᵀ (rows = head_dim,
// kBlockN key bytes each, swizzled as wgmma reads it), keys permuted by σ inside each 16-byte
// chunk. Warp w takes its units (16 keys x 128 columns, TransposeUnit); a unit is four steps of 32
// columns, each one ldmatrix.trans, four byte permutes and one stmatrix:
//   - ldmatrix.x4.trans (b16) reads four 8-key x 16-byte matrices (keys 0-7 and 8-15 of the group,
//     at column chunks c and c+1) and hands thread t, per matrix, keys 2a and 2a+1 (a = t%4) of the
//     column pair dp = t/4: bytes [V(2a, 2dp), V(2a, 2dp+1), V(2a+1, 2dp), V(2a+1, 2dp+1)].
//   - With X from keys 0-7 and Y from keys 8-15, prmt 0x6420 gives [V(2a), V(2a+1), V(8+2a),
//     V(9+2a)] of column 2dp, and 0x7531 the same of column 2dp+1: word a of a Vᵀ row's 16-key chunk
//     in σ's order (keys 2a, 2a+1, 8+2a, 9+2a), one permute per word (the 4x4 byte transpose of
//     LDS.32 rows it replaces took 24 per 16 words, with 16 LDS.32 and 4 STS.128).
//   - stmatrix.x4 writes thread t's word to word t%4 of row t/4 of each matrix. A matrix of the
//     even rows (2dp) alone would put rows d and d+8 of one swizzle phase in one store: 2-way bank
//     conflicts (128-byte rows: the phase is d % 8; 64-byte rows: (d/2) % 4 and d's parity). So
//     the first matrix takes row 2dp + (dp >= 4) and the second the other one, a lane-dependent
//     permute selector: rows {0,2,4,6,9,11,13,15} and {1,3,5,7,8,10,12,14}, 8 phases each.
// Reads are conflict-free as before (8 consecutive keys of one chunk: 8 swizzle phases).
// Every address is a slot base plus a per-lane offset fixed for the whole kernel (TransposeLaneLdsm),
// XORed or added with step constants: the raw chunk c + h of key k sits at ((c + h) ^ (k % 8)) << 4,
// and with c even that is the lane's (h ^ (k % 8)) << 4 XOR c << 4.
template <class Tr>
struct TransposeLaneLdsm {
    uint32_t ld;    // raw V: this lane's ldmatrix row (matrix m = 2h + half: key 8·half + r, chunk h)
    uint32_t st_a;  // Vᵀ block A (128-byte rows): its stmatrix row (matrix m = 2h + e), chunk `warp`
    uint32_t st_b;  // Vᵀ block B (64-byte rows): the same
    uint32_t sel_first, sel_second;  // prmt selectors of the two matrices of a column chunk

    __device__ __forceinline__ TransposeLaneLdsm(int warp, int lane) {
        const int m = lane / 8, r = lane % 8, h = m / 2, e = m % 2;
        ld = static_cast<uint32_t>((16 * warp + 8 * e + r) * 128 + ((h ^ r) << 4));
        const int dl = 2 * r + ((r >= 4 ? 1 : 0) ^ e);  // the row inside the 16-row chunk (above)
        const int d = 16 * h + dl;
        st_a = static_cast<uint32_t>(d * 128 + ((warp ^ (dl & 7)) << 4));
        st_b = static_cast<uint32_t>(d * 64 + ((warp ^ ((dl >> 1) & 3)) << 4));
        const bool high = lane / 4 >= 4;  // the lane's pair dp = lane / 4
        sel_first = high ? 0x7531u : 0x6420u;
        sel_second = high ? 0x6420u : 0x7531u;
    }
};

template <class Tr>
__device__ __forceinline__ void transpose_v(uint32_t raw, uint32_t vt, const TransposeLaneLdsm<Tr>& tl) {
#pragma unroll
    for (int gi = 0; gi < Tr::kUnitsPerWarp; ++gi) {
        const TransposeUnit<Tr> unit(gi);
        const uint32_t src = unit.raw(raw);
#pragma unroll
        for (int c = 0; c < 8; c += 2) {  // column chunks c, c + 1: Vᵀ rows 16c .. 16c + 31
            uint32_t x[4], w[4];
            ptx::ldmatrix_x4_trans(x, src + (tl.ld ^ static_cast<uint32_t>(c << 4)));
            w[0] = __byte_perm(x[0], x[1], tl.sel_first);
            w[1] = __byte_perm(x[0], x[1], tl.sel_second);
            w[2] = __byte_perm(x[2], x[3], tl.sel_first);
            w[3] = __byte_perm(x[2], x[3], tl.sel_second);
            // Rows 16c.. further: c·16 rows of 128 bytes in block A, of 64 bytes in block B.
            hopper::stmatrix_x4(unit.vt(vt, tl.st_a + c * 16 * 128, tl.st_b + c * 16 * 64), w);
        }
    }
}

// The producer warpgroup (128 threads; thread 0 issues every TMA): Q, tiles 0..kLookahead-1, then
// per tile t: load tile t + kLookahead (after its ring slot's release), wait for raw V(t),
// transpose it into Vᵀ slot t % kStages, publish it (v_full, one arrival per warp).
//   - The producer barrier at the top of each iteration: every warp has finished reading raw
//     slot (t - 1) % kRawSlots, which the load of tile t + kLookahead overwrites.
//   - All 128 threads wait on empty[] (not only the TMA thread): a transposing thread overwrites
//     Vᵀ slot t % kStages, whose release it must itself have observed.
//   - fence.proxy.async before the arrival: the Vᵀ bytes were written by st.shared (generic
//     proxy) and are read by wgmma (async proxy).
template <class Tr>
__device__ __forceinline__ void produce(const Fp8Smem<Tr>& sm, const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                                        const CUtensorMap* tm_v, const BlockCoords& blk, int n_tiles,
                                        const FwdParams& p, int ptid) {
    if constexpr (Tr::kVtPrepass) {
        // Vᵀ from the pre-pass (tm_v maps it): thread 0 loads Q, then per tile K and Vᵀ into ring
        // slot t % kStages once the consumers released the tile that slot held, as rung 7's
        // producer; the other 127 threads leave.
        if (ptid != 0) return;
        load_q<Tr>(sm, tm_q, blk, p);
#pragma unroll 1
        for (int t = 0; t < n_tiles; ++t) {
            const int slot = t % Tr::kStages;
            if (t >= Tr::kStages)
                ptx::mbarrier_wait_parity(sm.empty0 + 8 * slot, static_cast<uint32_t>((t / Tr::kStages - 1) & 1));
            const int row = (blk.key_tile_begin + t) * Tr::kBlockN;
            wgmma::load_key_rows<Tr>(sm.k + slot * Tr::kKBytes, tm_k, sm.bar_k0 + 8 * slot, row, blk);
            hopper::mbarrier_arrive_expect_tx(sm.bar_v0 + 8 * slot, Tr::kVtBytes);
            hopper::tma_load_4d(sm.vt + slot * Tr::kVtBytes, tm_v, sm.bar_v0 + 8 * slot, row, 0, blk.head_kv, blk.batch);
        }
    } else {
        const int lane = ptid % 32;
        using Lane = std::conditional_t<Tr::kTransposeLdsm, TransposeLaneLdsm<Tr>, TransposeLaneLds<Tr>>;
        const Lane tl(ptid / 32, lane);
        const bool issuer = ptid == 0;
        if (issuer) {
            load_q<Tr>(sm, tm_q, blk, p);
            for (int t = 0; t < Tr::kLookahead && t < n_tiles; ++t) load_kv(sm, t, tm_k, tm_v, blk);
        }
#pragma unroll 1
        for (int t = 0; t < n_tiles; ++t) {
            hopper::named_barrier_sync(Tr::kProducerBar, 128);
            const int ahead = t + Tr::kLookahead;
            if (ahead < n_tiles) {
                if (ahead >= Tr::kStages)
                    ptx::mbarrier_wait_parity(sm.empty0 + 8 * (ahead % Tr::kStages),
                                              static_cast<uint32_t>((ahead / Tr::kStages - 1) & 1));
                if (issuer) load_kv(sm, ahead, tm_k, tm_v, blk);
            }
            const int slot = t % Tr::kStages, r = t % Tr::kRawSlots;
            ptx::mbarrier_wait_parity(sm.bar_raw0 + 8 * r, static_cast<uint32_t>((t / Tr::kRawSlots) & 1));
            transpose_v(sm.raw + r * Tr::kKBytes, sm.vt + slot * Tr::kVtBytes, tl);
            hopper::fence_proxy_async_shared_cta();
            __syncwarp();
            if (lane == 0) ptx::mbarrier_arrive(sm.bar_v0 + 8 * slot);
        }
    }
}

// ---- A consumer warpgroup ----
// Fragment convention (hopper.cuh): thread (warp w of its warpgroup, lane l) holds rows
// r0 = 16w + l/4 and r0 + 8, accumulator element 4j + 2h + e at row r0 + 8h, column 8j + 2(l%4) + e.

template <class Tr>
struct Fp8Consumer {
    int wg, lane, r0, c0;
    uint32_t my_turn, next_turn;
    bool last_wg;
    uint64_t desc_q;
    // K's and Vᵀ's descriptors as low words (hopper::smem_desc_lo: start address and LBO); their
    // high words are the constants below.
    uint32_t k_lo, vt_a_lo, vt_b_lo;
    static constexpr uint32_t kKHi = hopper::smem_desc_hi(1024, hopper::kLayoutSw128);
    static constexpr uint32_t kVtAHi = kKHi;
    static constexpr uint32_t kVtBHi = hopper::smem_desc_hi(512, hopper::kLayoutSw64);

    __device__ __forceinline__ Fp8Consumer(const Fp8Smem<Tr>& sm, int ctid)
        // ctid / 128, not hopper::warp_uniform(ctid / 128) as rungs 5-7 and 9: the broadcast took the
        // main loop's 8 R2UR out here too but measured -6 % (4x16x8192x128, 758-791 -> 718-730
        // TFLOP/s, three rounds, session 11 call 1), where the bf16 rungs gained 1-4 %.
        : wg(ctid / 128),
          lane(ctid % 32),
          r0(wg * Tr::kWarpgroupRows + ((ctid / 32) % 4) * 16 + lane / 4),
          c0(2 * (lane % 4)),
          my_turn(Tr::kSchedBar + wg),
          next_turn(Tr::kSchedBar + (wg + 1 == Tr::kConsumerWarpgroups ? 0 : wg + 1)),
          last_wg(wg == Tr::kConsumerWarpgroups - 1),
          // K-major operands (hopper.cuh's descriptor notes): SBO 1024 between 8-row groups.
          desc_q(hopper::make_smem_desc_sw128(sm.q + wg * Tr::kWarpgroupRows * 128, 16, 1024)),
          k_lo(ptx::opaque(hopper::smem_desc_lo(sm.k, 16))),
          // Vᵀ's blocks: 8-row groups of 1024 bytes (A) and 512 (B).
          vt_a_lo(ptx::opaque(hopper::smem_desc_lo(sm.vt, 16))),
          vt_b_lo(ptx::opaque(hopper::smem_desc_lo(sm.vt + Tr::kVtBOffset, 16))) {}

    __device__ __forceinline__ void wait_turn() const {
        if constexpr (Tr::kIssueToken) hopper::named_barrier_sync(my_turn, 256);
    }
    __device__ __forceinline__ void pass_turn() const {
        if constexpr (Tr::kIssueToken) hopper::named_barrier_arrive(next_turn, 256);
    }
};

// Q's rows of this thread as e4m3 A fragments (kQInRegisters), k-step kk in qa[4kk..4kk+3]: row r0
// then r0 + 8 at bytes 32kk + 4t.., then both at 32kk + 16 + 4t.. (t = lane % 4), read from Q's
// 128-byte swizzled rows (chunk c of row r at chunk c ^ (r % 8)).
template <class Tr>
__device__ __forceinline__ void load_q_fragments(uint32_t (&qa)[Tr::kQRegs], const Fp8Smem<Tr>& sm,
                                                 const Fp8Consumer<Tr>& c) {
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsQK; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int row = c.r0 + 8 * (i & 1);
            const int byte = 32 * (kk % 4) + 16 * (i >> 1) + 2 * c.c0;  // c0 = 2t
            const uint32_t addr = sm.q + (kk / 4) * Tr::kQChunkBytes + row * 128 + (((byte >> 4) ^ (row & 7)) << 4) + (byte & 15);
            qa[4 * kk + i] = ptx::ld_shared_b32(addr);
        }
}

// S = Q·K(slot)ᵀ: kKStepsQK k32 steps, 32 bytes each inside the 128-byte rows.
template <class Tr>
__device__ __forceinline__ void issue_qk(float (&s)[Tr::kAccS], const Fp8Consumer<Tr>& c, int slot,
                                         const uint32_t (&qa)[Tr::kQRegs]) {
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsQK; ++kk) {
        const uint32_t off_q = (kk / 4) * Tr::kQChunkBytes + (kk % 4) * 32;
        // K's descriptor low word in 16-byte units, so ptxas adds constants to one slot base.
        const uint32_t k_lo = c.k_lo + slot * (Tr::kKBytes / 16) + (kk / 4) * (Tr::kKVChunkBytes / 16) + (kk % 4) * 2;
        if constexpr (Tr::kQInRegisters) {
            const uint32_t(&a)[4] = *reinterpret_cast<const uint32_t(*)[4]>(&qa[4 * kk]);
            hopper::WgmmaM64E4M3<Tr::kBlockN>::rs(s, a, k_lo, Fp8Consumer<Tr>::kKHi, kk > 0 ? 1u : 0u);
        } else {
            const uint64_t desc_k = (static_cast<uint64_t>(Fp8Consumer<Tr>::kKHi) << 32) | k_lo;
            hopper::WgmmaM64E4M3<Tr::kBlockN>::ss(s, c.desc_q + (off_q >> 4), desc_k, kk > 0 ? 1u : 0u);
        }
    }
}

// O += P·Vᵀ(slot)ᵀ: P from registers (pa[4kk..4kk+3] = k-step kk), Vᵀ K-major, 32 key bytes per step.
template <class Tr>
__device__ __forceinline__ void issue_pv(float (&o)[Tr::kAccO], const uint32_t (&pa)[Tr::kPRegs],
                                         const Fp8Consumer<Tr>& c, int slot) {
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsPV; ++kk) {
        // Keys 32kk..32kk+31: in block A while below kVtAKeys, then in block B.
        const bool in_a = 32 * kk < Tr::kVtAKeys;
        const uint32_t off_v16 = slot * (Tr::kVtBytes / 16) + (in_a ? 2 * kk : 2 * kk - Tr::kVtAKeys / 16);
        const uint32_t(&a)[4] = *reinterpret_cast<const uint32_t(*)[4]>(&pa[4 * kk]);
        hopper::WgmmaM64E4M3<Tr::kHeadDim>::rs(o, a, (in_a ? c.vt_a_lo : c.vt_b_lo) + off_v16,
                                               in_a ? Fp8Consumer<Tr>::kVtAHi : Fp8Consumer<Tr>::kVtBHi, 1u);
    }
}

// Rung 7's mask before session 16 (key_visible per element, the column rebuilt each time), kept
// here: wgmma::mask_tile's one-bound-per-row form measured 782 -> 705 TFLOP/s on this rung at
// 4x16x8192x128 causal (session 16 call 4, H100 SXM, two rounds: 785 / 779 -> 702 / 707), though
// only the diagonal key tile of a row block (1 of 32-64 here) runs it: ptxas schedules the whole
// softmax differently around it. Rungs 5-7 and 9 gained from the bound form (wgmma_steps.cuh).
template <int kBlockN, int kAccS>
__device__ __forceinline__ void mask_tile_by_key(float (&s)[kAccS], int pos0, int pos1, int n_start, int c0,
                                                 const FwdParams& p) {
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int col = n_start + 8 * j + c0 + (e & 1);
            if (!key_visible(e >> 1 ? pos1 : pos0, col, p.seqlen_k, p.causal)) s[4 * j + e] = -CUDART_INF_F;
        }
}

// softmax_tile's two halves, which softmax_pack_speculative calls apart: the mask of tile t, and
// the online softmax of the masked tile with S's scale `scale_log2` (s_scale_log2).
__device__ __forceinline__ float s_scale_log2(const FwdParams& p) { return p.scale_log2 * p.q_descale * p.k_descale; }

template <class Tr, bool kMayMask = true>
__device__ __forceinline__ void mask_s_tile(float (&s)[Tr::kAccS], const FwdParams& p, const BlockCoords& blk, int t,
                                            const Fp8Consumer<Tr>& c, const int (&pos)[3]) {
    const int n_start = (blk.key_tile_begin + t) * Tr::kBlockN;
    if (kMayMask && tile_needs_mask(pos[0], n_start, Tr::kBlockN, p.seqlen_k, p.causal))
        mask_tile_by_key<Tr::kBlockN>(s, pos[1], pos[2], n_start, c.c0, p);
}

template <class Tr>
__device__ __forceinline__ void online_softmax_s(float (&s)[Tr::kAccS], float (&row_max)[2], float (&row_sum)[2],
                                                 float (&rescale)[2], float scale_log2) {
    wgmma::online_softmax_tile<Tr::kBlockN, Tr::kAccS, Tr::kBlockN, wgmma::NoMidpoint, Tr::kLazyMax,
                               Tr::kNegInfStart>(
        s, row_max, row_sum, rescale, scale_log2, static_cast<float>(Tr::kPScaleLog2), {}, Tr::kMaxSlackLog2);
}

// Mask and online softmax of one S tile in place (s becomes 2^kPScaleLog2·P in fp32): rung 7's steps
// (wgmma_steps.cuh) with S's scale q_descale·k_descale·softmax_scale·log2(e) and P shifted up by
// 2^kPScaleLog2, so p = 2^(s' - (m - kPScaleLog2)) is at most 2^(kPScaleLog2 + kMaxSlackLog2).
template <class Tr>
__device__ __forceinline__ void softmax_tile(float (&s)[Tr::kAccS], float (&row_max)[2], float (&row_sum)[2],
                                             float (&rescale)[2], const FwdParams& p, const BlockCoords& blk, int t,
                                             const Fp8Consumer<Tr>& c, const int (&pos)[3]) {
    mask_s_tile<Tr>(s, p, blk, t, c, pos);
    online_softmax_s<Tr>(s, row_max, row_sum, rescale, s_scale_log2(p));
}

// P (fp32 accumulator layout) -> e4m3 A fragments in place, no lane exchange (header: σ). k-step
// kk covers accumulator groups j = 4kk..4kk+3, s[16kk + 4i + 2h + e] = (row r0 + 8h, column
// 8i + 2t + e); register 0 = row r0, positions 4t..4t+3 <- i = 0, 1; register 1 the same for row
// r0 + 8; registers 2 and 3 = positions 16 + 4t.. <- i = 2, 3.
__device__ __forceinline__ void pack_kstep(uint32_t* pa, const float* x) {
    pa[0] = hopper::cvt_pack4_e4m3(x[0], x[1], x[4], x[5]);
    pa[1] = hopper::cvt_pack4_e4m3(x[2], x[3], x[6], x[7]);
    pa[2] = hopper::cvt_pack4_e4m3(x[8], x[9], x[12], x[13]);
    pa[3] = hopper::cvt_pack4_e4m3(x[10], x[11], x[14], x[15]);
}

template <class Tr>
__device__ __forceinline__ void pack_p(uint32_t (&pa)[Tr::kPRegs], const float (&s)[Tr::kAccS]) {
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsPV; ++kk) pack_kstep(&pa[4 * kk], &s[16 * kk]);
}

// softmax_tile and pack_p for every tile after the first, with the exponentials taken before the
// tile's row max is known. With the lazy max a row's max stays put unless the tile's exceeds it by
// more than kMaxSlackLog2, which after a row's first tiles almost never happens; so the P of the
// running max (the offset kept from the last tile) is the tile's P on nearly every tile, and its
// exponentials, row sums and e4m3 packing issue as soon as S lands. Whether the running max may
// stay is read from the packed bytes, not from the tile's max: a P past the slack (2^8.75 = 430.5)
// is, from 432 up, a byte of 0x7E (448: ties round there, satfinite clamps anything larger) or
// 0x7F (NaN), so the warp redoes the tile if any thread holds such a byte, found by adding 2 to
// every byte of its 16 words (no byte exceeds 0x7F, so no carry crosses bytes) and testing bit 7:
// 16 IADD and 8 LOP3 where the row max took 64 FMNMX, 4 SHFL and the slack test (head_dim 128's
// hot path 310 -> 253 SASS instructions). A row still at its start (-inf: no visible key yet) always
// redoes.
// Kept, the tile's P stands and O's factor is 1; redone, the warp runs softmax_tile's two halves
// on S, which stays intact (P goes straight into pn, the e4m3 fragments of the next P·V). The two
// rules differ only for a row whose tile max lies 3.75-3.755 above its running max (x in 430.5-432,
// rounded to 416): softmax_tile raises the max there, this keeps it; both P are unsaturated normals.
// Session 25 call 2 (H100 SXM, default rule, two rounds, against the FMNMX vote): head_dim 128
// +1.3 to +2.2 %, and it makes the speculation pay at head_dim 256 (below, WgmmaFp8D256Prepass).
template <class Tr, bool kMayMask = true>
__device__ __forceinline__ void softmax_pack_speculative(float (&s)[Tr::kAccS], uint32_t (&pn)[Tr::kPRegs],
                                                         float (&row_max)[2], float (&row_sum)[2], float (&rescale)[2],
                                                         const FwdParams& p, const BlockCoords& blk, int t,
                                                         const Fp8Consumer<Tr>& c, const int (&pos)[3]) {
    mask_s_tile<Tr, kMayMask>(s, p, blk, t, c, pos);
    const float scale_log2 = s_scale_log2(p);
    // online_softmax_tile's offset for a row that keeps its max.
    const float offset[2] = {row_max[0] - static_cast<float>(Tr::kPScaleLog2),
                             row_max[1] - static_cast<float>(Tr::kPScaleLog2)};
    float sum[2] = {row_sum[0], row_sum[1]};
    uint32_t high = 0;  // e4m3_mark_high of every P word of this thread, ORed (fa/fp8.h)
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsPV; ++kk) {
        float x[16];
#pragma unroll
        for (int i = 0; i < 16; ++i) {
            x[i] = ptx::ex2_approx(fmaf(s[16 * kk + i], scale_log2, -offset[(i >> 1) & 1]));
            sum[(i >> 1) & 1] += x[i];
        }
        pack_kstep(&pn[4 * kk], x);
#pragma unroll
        for (int i = 0; i < 4; ++i) high |= e4m3_mark_high(pn[4 * kk + i]);
    }
    const bool keep =
        !e4m3_any_marked(high) && row_max[0] != wgmma::row_max_start<Tr>() && row_max[1] != wgmma::row_max_start<Tr>();
    if (__all_sync(0xffffffffu, keep)) {
        rescale[0] = rescale[1] = 1.0f;
        row_sum[0] = sum[0];
        row_sum[1] = sum[1];
    } else {
        online_softmax_s<Tr>(s, row_max, row_sum, rescale, scale_log2);
        pack_p<Tr>(pn, s);
    }
}

// Tile t's slot released by this warp (its wgmmas reading K(t) and Vᵀ(t) waited).
template <class Tr>
__device__ __forceinline__ void release(const Fp8Smem<Tr>& sm, const Fp8Consumer<Tr>& c, int slot) {
    __syncwarp();
    if (c.lane == 0) ptx::mbarrier_arrive(sm.empty0 + 8 * slot);
}

// O · v_descale / l in bf16 into the staging rows of this warpgroup (the raw V slots, 128-byte
// swizzled in 64-column blocks as the bf16 O map's boxes), then its first thread TMA-stores them
// (rows past seqlen_q are clipped by the copy engine), as rung 7's store_o_tile.
template <class Tr>
__device__ __forceinline__ uint32_t out_chunk(const Fp8Smem<Tr>& sm, int ch) {
    return ch < Tr::kOutChunksInRaw ? sm.raw + ch * Tr::kOutChunkBytes
                                    : sm.q + (ch - Tr::kOutChunksInRaw) * Tr::kQChunkBytes;
}

// The CTA's coordinates: its tile's, or with kTailChunks (the tail split's launch) its chunk's.
// fresh: from the block index read again (ptx::ctaid_x), for the epilogue (BlockCoords).
template <class Tr, bool kTailChunks>
__device__ __forceinline__ BlockCoords cta_coords(const FwdParams& p, bool fresh) {
    if constexpr (kTailChunks)
        return tail_chunk_coords(p, Tr::kBlockM, Tr::kBlockN,
                                 tail_chunk(p, Tr::kBlockM, fresh ? ptx::ctaid_x() : static_cast<int>(blockIdx.x)));
    else
        return BlockCoords(p, Tr::kBlockM, Tr::kBlockN, fresh);
}

template <class Tr, bool kTailChunks>
__device__ __forceinline__ void store_o(const float (&o)[Tr::kAccO], float (&row_sum)[2], const Fp8Consumer<Tr>& c,
                                        const Fp8Smem<Tr>& sm, const CUtensorMap* tm_o, const FwdParams& p) {
    const BlockCoords blk = cta_coords<Tr, kTailChunks>(p, true);
    const int rows = p.seqlen_q * rows_per_position(p);
    const bool leader = threadIdx.x % 128 == 0;  // the warpgroup's first thread (consumers start at 128)
    float inv[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
        row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
        inv[h] = online_softmax_inv_sum(row_sum[h]) * p.v_descale;
    }
#pragma unroll
    for (int j = 0; j < Tr::kAccO / 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = c.r0 + 8 * h;
            const uint32_t addr = out_chunk(sm, j / 8) + r * 128 + (((j % 8) ^ (r % 8)) << 4) + c.c0 * 2;
            ptx::st_shared_b32(addr, ptx::pack2<__nv_bfloat16>(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]));
        }
    hopper::fence_proxy_async_shared_cta();
    hopper::named_barrier_sync(Tr::kEpilogueBar + c.wg, 128);
    if (leader && blk.m_start + c.wg * 64 < rows) {
        const int first_pos = (blk.m_start + c.wg * 64) / rows_per_position(p);
#pragma unroll
        for (int ch = 0; ch < Tr::kOutChunks; ++ch)
            hopper::tma_store_5d(tm_o, out_chunk(sm, ch) + c.wg * 64 * 128, ch * Tr::kOutCols, 0,
                                 first_pos, blk.q_slot, blk.batch);
        hopper::bulk_commit_group();
        hopper::bulk_wait_group_read<0>();  // shared memory outlives the store's reads
    }
}

// The consumer schedule is rung 7's (07_wgmma_overlap.cu: program order, why the waits sit where
// they do, and the deadlock argument, which holds here with the producer's rule in Fp8Traits):
//   batch 0 = S(0); batch t+1 = S(t+1) then O += P(t)·V(t) (two commit groups); softmax(t+1) runs
//   between wait_group 1 and wait_group 0; batch n = P(n-1)·V(n-1).
template <class Tr, bool kTailChunks>
__device__ __forceinline__ void consume(const Fp8Smem<Tr>& sm, const FwdParams& p, const BlockCoords& blk, int n_tiles,
                                        const CUtensorMap* tm_o, int ctid) {
    const Fp8Consumer<Tr> c(sm, ctid);
    // Query positions of the row block and of this thread's two rows, once: each is an integer
    // division by heads_per_kv (~25 SASS instructions) that ptxas otherwise redid every tile.
    const int g = rows_per_position(p);
    const int pos[3] = {blk.m_start / g, (blk.m_start + c.r0) / g, (blk.m_start + c.r0 + 8) / g};
    float o[Tr::kAccO];
#pragma unroll
    for (int i = 0; i < Tr::kAccO; ++i) o[i] = 0.0f;
    float row_max[2] = {wgmma::row_max_start<Tr>(), wgmma::row_max_start<Tr>()};
    float row_sum[2] = {0.0f, 0.0f};
    float s[Tr::kAccS];
    // P(t) and P(t+1): the speculative softmax writes one while P·V reads the other.
    uint32_t pa[Tr::kPRegs], pn[Tr::kPRegs];
    float rescale[2];

    ptx::mbarrier_wait_parity(sm.bar_q, 0);
    uint32_t qa[Tr::kQRegs];
    if constexpr (Tr::kQInRegisters) load_q_fragments<Tr>(qa, sm, c);
    if (n_tiles > 0) {
        // Batch 0: S(0); the last warpgroup starts the token.
        if (Tr::kIssueToken && c.last_wg) hopper::named_barrier_arrive(Tr::kSchedBar, 256);
        ptx::mbarrier_wait_parity(sm.bar_k0, 0);
        c.wait_turn();
        hopper::warpgroup_fence_operand(s);
        hopper::wgmma_fence();
        issue_qk(s, c, 0, qa);
        hopper::wgmma_commit_group();
        c.pass_turn();
        hopper::warpgroup_fence_operand(s);
        hopper::wgmma_wait_group<0>();
        hopper::warpgroup_fence_operand(s);
        softmax_tile(s, row_max, row_sum, rescale, p, blk, 0, c, pos);
        pack_p<Tr>(pa, s);
        ptx::mbarrier_wait_parity(sm.bar_v0, 0);  // Vᵀ(0), for batch 1 (or batch n = 1)

        int stage = 0, next_stage = 1;
        uint32_t next_phase = 0;
        // Batch t+1 for t + 1 < n_tiles: P(t) from pc, P(t+1) into pnx.
        auto batch = [&](int t, uint32_t(&pc)[Tr::kPRegs], uint32_t(&pnx)[Tr::kPRegs], auto may_mask) {
            using MayMask = decltype(may_mask);  // std::true_type / false_type: may tile t+1 need the mask
            wgmma::rescale_o<Tr>(o, rescale);
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pc);
            ptx::mbarrier_wait_parity(sm.bar_k0 + 8 * next_stage, next_phase);  // K(t+1)
            c.wait_turn();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pc);
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_fence();
            issue_qk(s, c, next_stage, qa);
            hopper::wgmma_commit_group();
            issue_pv(o, pc, c, stage);
            hopper::wgmma_commit_group();
            c.pass_turn();
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_wait_group<1>();  // S(t+1) landed; P(t)·V(t) may still run
            hopper::warpgroup_fence_operand(s);
            if constexpr (Tr::kSpeculativeSoftmax)
                softmax_pack_speculative<Tr, MayMask::value>(s, pnx, row_max, row_sum, rescale, p, blk, t + 1, c, pos);
            else
                softmax_tile(s, row_max, row_sum, rescale, p, blk, t + 1, c, pos);  // one loop (below)
            ptx::mbarrier_wait_parity(sm.bar_v0 + 8 * next_stage, next_phase);  // Vᵀ(t+1)
            int nn_stage = next_stage + 1;
            uint32_t nn_phase = next_phase;
            if (nn_stage == Tr::kStages) {
                nn_stage = 0;
                nn_phase ^= 1u;
            }
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pc);
            hopper::wgmma_wait_group<0>();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pc);
            if constexpr (!Tr::kSpeculativeSoftmax) pack_p<Tr>(pnx, s);  // pc's wgmma is done
            release(sm, c, stage);  // K(t) read by batch t, Vᵀ(t) by batch t+1
            stage = next_stage;
            next_stage = nn_stage;
            next_phase = nn_phase;
        };
        // Batch n: O = α·O + P(n-1)·V(n-1); the last warpgroup retires the token.
        auto last_batch = [&](uint32_t(&pc)[Tr::kPRegs]) {
            wgmma::rescale_o<Tr>(o, rescale);
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pc);
            c.wait_turn();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pc);
            hopper::wgmma_fence();
            issue_pv(o, pc, c, stage);
            hopper::wgmma_commit_group();
            if (!c.last_wg) c.pass_turn();
            hopper::warpgroup_fence_operand(o);
            hopper::wgmma_wait_group<0>();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pc);
            release(sm, c, stage);
        };
        static_assert(Tr::kSpeculativeSoftmax || !Tr::kUnmaskedLoop, "the unmasked loop is the speculative way's");
        if constexpr (Tr::kSpeculativeSoftmax) {
            // P alternates between pa and pn, two batches a trip: a copy of pn into pa (one buffer
            // written under the P·V batch that reads the other) made ptxas serialize every wgmma.
            int t = 0;
            if constexpr (Tr::kUnmaskedLoop) {
                // Pairs of batches whose softmax tiles (t + 1, t + 2) need no mask, without the mask
                // test (mask.cuh's unmasked_key_tiles); t stays even, so pa / pn keep their turns.
                const int unmasked = unmasked_key_tiles(pos[0], blk.key_tile_begin, n_tiles, Tr::kBlockN,
                                                        p.seqlen_k, p.causal);
#pragma unroll 1
                while (t + 2 < unmasked) {
                    batch(t++, pa, pn, std::false_type{});
                    batch(t++, pn, pa, std::false_type{});
                }
            }
#pragma unroll 1
            while (true) {
                if (t + 1 >= n_tiles) {
                    last_batch(pa);
                    break;
                }
                batch(t++, pa, pn, std::true_type{});
                if (t + 1 >= n_tiles) {
                    last_batch(pn);
                    break;
                }
                batch(t++, pn, pa, std::true_type{});
            }
        } else {
            // One buffer, packed after the P·V wait; the loop rolled (unrolled by two it cost 2-3 %).
#pragma unroll 1
            for (int t = 0; t + 1 < n_tiles; ++t) batch(t, pa, pa, std::true_type{});
            last_batch(pa);
        }
    }
    if constexpr (kTailChunks)
        // The flag in the warpgroup's own O staging rows, which only its store_o writes, after the
        // merge. The staging rows are free here: the raw V slots they share (in-kernel way) were
        // last read by the transpose of the last key tile, whose Vᵀ this warpgroup has waited for.
        if (!merge_tail<Tr>(o, row_max, row_sum, c.wg, ctid, out_chunk(sm, 0) + c.wg * Tr::kWarpgroupRows * 128, p,
                            ptx::ctaid_x()))
            return;  // another chunk of the tile stores O (device/tail_merge.cuh)
    store_o<Tr, kTailChunks>(o, row_sum, c, sm, tm_o, p);
}

// Grid as every fused rung (BlockCoords), or with kTailChunks the tail split's chunks (TailChunk).
// Warpgroup 0 = producer (TMA from thread 0; without the pre-pass the V transpose from all 128),
// warpgroups 1.. = consumers. The chunks' build is a kernel of its own so that the tiles' build is
// the one measured without the split: sharing one kernel (the decode and the merge behind a
// runtime test) left the main loop's instruction count but not its schedule, -0.7 to -1.8 % causal
// (session 27 calls 2-3).
template <class Tr, bool kTailChunks = false>
__global__ void __launch_bounds__(Tr::kLaunchThreads, 1)
    wgmma_fp8_fwd_kernel(const FwdParams p, const __grid_constant__ CUtensorMap tm_q,
                         const __grid_constant__ CUtensorMap tm_k, const __grid_constant__ CUtensorMap tm_v,
                         const __grid_constant__ CUtensorMap tm_o) {
#if FA_HOPPER_ENABLED
    extern __shared__ unsigned char smem_raw[];
    const Fp8Smem<Tr> sm(smem_raw);
    const BlockCoords blk = cta_coords<Tr, kTailChunks>(p, false);
    const int n_tiles = blk.key_tiles();
    const int tid = threadIdx.x;
    // The tail chunks (a programmatic launch) may take SMs as this grid's last wave frees them.
    if (!kTailChunks && p.tail_tiles > 0) ptx::launch_dependent_grids();
    if (tid == 0) sm.init_barriers();
    __syncthreads();
    if (tid < 128) {
        hopper::setmaxnreg_dec<Tr::kProducerRegs>();
        produce(sm, &tm_q, &tm_k, &tm_v, blk, n_tiles, p, tid);
    } else {
        hopper::setmaxnreg_inc<Tr::kConsumerRegs>();
        consume<Tr, kTailChunks>(sm, p, blk, n_tiles, &tm_o, tid - 128);
    }
#endif  // FA_HOPPER_ENABLED
}

// ---- Vᵀ: V transposed by a kernel of its own, before the attention kernel (session 20) ----

// Keys of one Vᵀ row in global memory: seqlen_k rounded up to 16, so that rows start on the
// 16-byte boundaries TMA needs and every 16-key σ chunk is whole (its keys past seqlen_k zero).
constexpr int kVtKeyChunk = 16;
int vt_keys_padded(int seqlen_k) { return (seqlen_k + kVtKeyChunk - 1) / kVtKeyChunk * kVtKeyChunk; }
std::size_t vt_bytes(int batch, int heads_kv, int head_dim, int seqlen_k) {
    return static_cast<std::size_t>(batch) * heads_kv * head_dim * vt_keys_padded(seqlen_k);
}

// Vᵀ[batch][K/V head][d][key'] = V[batch][key][K/V head][d] with the keys of each 16-key chunk in
// σ's order (the header: byte 4t + j of a chunk holds key 2t + (j % 2) + 8·(j / 2)), which is the
// order P's registers hold the keys in, so one TMA box of it is a Vᵀ slot as the consumers read
// it. One CTA per 128 keys x 128 columns of one head: 128 rows of 128 bytes read as 16-byte
// vectors (zeros past seqlen_k) into shared memory; then each thread takes 4 columns x 16 keys,
// reads them as 16 words (one per key), and builds the 4 columns' 16-byte chunks of Vᵀ by 4 x 4
// byte transposes (8 PRMT each). A memory-bound pass over V: one read and one write of its bytes.
// Session 20's version read a byte per key and column (64 LDS.U8 per 64 output bytes, 4-way bank
// conflicts): 64 us for V's 67 MB at 1x16x16384x256 (session 22 call 2, ncu at the base clock,
// ~2.1 TB/s read + write, stalled on the shared-memory pipe).
constexpr int kVtPrepassKeys = 128;
__global__ void __launch_bounds__(256) fp8_vt_prepass_kernel(const FwdParams p, uint8_t* vt, int keys_padded) {
    constexpr int kKeys = kVtPrepassKeys, kCols = 128, kWords = kCols / 4;
    // Word w of row k sits at word w ^ swz(k): the 4 chunks a warp reads at once (rows 16 apart,
    // the same word) land in 4 different banks. XOR by a multiple of 8 keeps 16-byte groups whole.
    __shared__ __align__(16) uint32_t tile[kKeys * kWords];
    const auto swz = [](int k) { return 8 * ((k / kVtKeyChunk) % 4); };
    const int key0 = blockIdx.x * kKeys;
    const int col_blocks = p.head_dim / kCols;
    const int head = blockIdx.y / col_blocks, col0 = (blockIdx.y % col_blocks) * kCols, batch = blockIdx.z;
    const uint8_t* v = static_cast<const uint8_t*>(p.v) + batch * p.v_batch_stride + head * p.v_head_stride + col0;
    for (int i = threadIdx.x; i < kKeys * (kCols / 16); i += blockDim.x) {
        const int k = i / (kCols / 16), c = i % (kCols / 16);
        uint4 x = make_uint4(0u, 0u, 0u, 0u);
        if (key0 + k < p.seqlen_k) x = *reinterpret_cast<const uint4*>(v + (key0 + k) * p.v_row_stride + 16 * c);
        *reinterpret_cast<uint4*>(&tile[k * kWords + ((4 * c) ^ swz(k))]) = x;
    }
    __syncthreads();
    // Thread -> (word g: columns 4g..4g+3, chunk c: keys 16c..16c+15). The 4 lanes of a quad take
    // 4 consecutive chunks of one word, so each store of a column writes 64 contiguous bytes.
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = 8 * (warp % 4) + lane / 4, c = 4 * (warp / 4) + lane % 4;
    const int first = key0 + kVtKeyChunk * c;
    if (first >= keys_padded) return;
    uint32_t w[kVtKeyChunk];
#pragma unroll
    for (int k = 0; k < kVtKeyChunk; ++k) {
        const int row = kVtKeyChunk * c + k;
        w[k] = tile[row * kWords + (g ^ swz(row))];
    }
    uint4 out[4];  // out[e]: column 4g + e
    uint32_t* o = reinterpret_cast<uint32_t*>(out);
#pragma unroll
    for (int t = 0; t < 4; ++t) {
        // Keys 2t, 2t+1, 2t+8, 2t+9 of the chunk, byte e of each = column 4g + e.
        const uint32_t x0 = __byte_perm(w[2 * t], w[2 * t + 1], 0x5140);      // a0 b0 a1 b1
        const uint32_t x1 = __byte_perm(w[2 * t], w[2 * t + 1], 0x7362);      // a2 b2 a3 b3
        const uint32_t y0 = __byte_perm(w[2 * t + 8], w[2 * t + 9], 0x5140);  // c0 d0 c1 d1
        const uint32_t y1 = __byte_perm(w[2 * t + 8], w[2 * t + 9], 0x7362);  // c2 d2 c3 d3
        o[0 * 4 + t] = __byte_perm(x0, y0, 0x5410);
        o[1 * 4 + t] = __byte_perm(x0, y0, 0x7632);
        o[2 * 4 + t] = __byte_perm(x1, y1, 0x5410);
        o[3 * 4 + t] = __byte_perm(x1, y1, 0x7632);
    }
    uint8_t* dst = vt + (static_cast<int64_t>(batch * p.heads_kv + head) * p.head_dim + col0 + 4 * g) * keys_padded + first;
#pragma unroll
    for (int e = 0; e < 4; ++e) *reinterpret_cast<uint4*>(dst + static_cast<int64_t>(e) * keys_padded) = out[e];
}

// Which way a problem gets Vᵀ: the pre-pass where each K/V head's V is read by at least the config's
// kVtPrepassMinRows query rows (seqlen_q x heads_per_kv; twice as many if causal), the in-kernel
// transpose below. The pre-pass costs one read and one write of V whatever the number of
// rows that reuse it; the in-kernel transpose costs per CTA tile. Session 20 (H100 SXM, steady
// state; call 11 below 4,096 rows, call 13 at 4,096, calls 5-6 from 8,192): at 512 / 1,024 / 2,048
// rows the pre-pass lost 15-21 / 8-16 / 1-9 %; at 4,096 it won 2.6-3.9 % non-causal and lost 1-5 %
// causal (whose attention does half the work for the same pass); at 8,192 and 16,384 it won 1-9 %.
// At head_dim 256 half as many rows: since session 21 only the pre-pass way has the registers for Q
// (WgmmaFp8D256Prepass, +8 to +13 %), and call 8 (steady state, two rounds, pre-pass against the
// in-kernel transpose) measured 8x16x2048 +6.0 %, 4x16x4096 causal +5.4 %, 8x16x2048 causal
// -2.2 %, 16x16x1024 -4.0 / -10.3 %, 32x16x512 -12.3 / -20.5 %. Session 22 gave the in-kernel way
// Q in registers too (40 / 232) and measured it against that rule (call 1, steady, two rounds):
// level at the two thresholds (8x16x2048 819.6 pre-pass vs 813.5 in-kernel; 4x16x4096 causal
// 795.5 vs 795.4), the pre-pass ahead above (4x16x4096 924.6 vs 881.4), the in-kernel way ahead
// below (8x16x2048 causal +3.3 %, 512-1,024 rows +1.8 to +4.9 %): the thresholds stay.
template <class Config>
bool use_vt_prepass(long long seqlen_q, long long heads_per_kv, bool causal) {
    return seqlen_q * heads_per_kv >= Config::kVtPrepassMinRows * (causal ? 2 : 1);
}

// The attention kernel over the grid's tiles and, with a tail split (fa/splitkv.h), its chunks' build
// over the split tiles' chunks, launched after it in the stream (its CTAs take the SMs the last
// wave leaves). v_map: the pre-pass's Vᵀ map, or null for V's. Never synchronizes.
template <class Tr>
cudaError_t launch_attention(const FwdParams& p, cudaStream_t stream, const CUtensorMap* v_map) {
    return launch_tma_fwd_tail_split<Tr, Tr::kLaunchThreads>(wgmma_fp8_fwd_kernel<Tr>,
                                                             wgmma_fp8_fwd_kernel<Tr, true>, p, stream, v_map);
}

// The pre-pass into the workspace (wgmma_fp8_workspace_bytes), then the attention kernel with the
// Vᵀ map in V's place; both in the stream, so one timed launch covers both. Never synchronizes.
template <class Tr>
cudaError_t launch_with_prepass(const FwdParams& p, cudaStream_t stream) {
    if (p.head_dim != Tr::kHeadDim || p.dtype != DType::Float8E4M3FN) return cudaErrorInvalidValue;
    if (p.workspace == nullptr || p.workspace_bytes < vt_bytes(p.batch, p.heads_kv, p.head_dim, p.seqlen_k))
        return cudaErrorInvalidValue;
    const int keys_padded = vt_keys_padded(p.seqlen_k);
    const dim3 grid_t((p.seqlen_k + kVtPrepassKeys - 1) / kVtPrepassKeys, p.heads_kv * (p.head_dim / 128), p.batch);
    fp8_vt_prepass_kernel<<<grid_t, 256, 0, stream>>>(p, static_cast<uint8_t*>(p.workspace), keys_padded);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    CUtensorMap vt_map;
    if (!encode_fp8_vt_map(p, p.workspace, keys_padded, Tr::kBlockN, Tr::kHeadDim, &vt_map)) return cudaErrorInvalidValue;
    return launch_attention<Tr>(p, stream, &vt_map);
}

// Caps: no split-KV, no packing; a tail split within the arrival counters, with its partials.
bool plain_or_tail_split(const FwdParams& p) {
    return p.num_splits <= 1 && !p.pack_gqa && tail_split_runnable(p);
}

// PrepassConfig: the pre-pass way's config where it differs from the in-kernel transpose's (the
// same tile; registers and Q's home: WgmmaFp8D256Prepass).
template <class Config, class PrepassConfig = Config>
cudaError_t launch_wgmma_fp8(const FwdParams& p, cudaStream_t stream) {
    if (!plain_or_tail_split(p)) return cudaErrorInvalidValue;
    using Tt = Fp8Traits<Config, false>;  // the in-kernel transpose
    if (use_vt_prepass<Config>(p.seqlen_q, p.heads_per_kv, p.causal))
        return launch_with_prepass<Fp8Traits<PrepassConfig, true>>(p, stream);
    return launch_attention<Tt>(p, stream, nullptr);
}

// The 192 x 64 tile's way (WgmmaFp8D128M192): the pre-pass, whatever the problem.
template <class Config>
cudaError_t launch_wgmma_fp8_prepass(const FwdParams& p, cudaStream_t stream) {
    if (!plain_or_tail_split(p)) return cudaErrorInvalidValue;
    return launch_with_prepass<Fp8Traits<Config, true>>(p, stream);
}

// Where head_dim 128's 192 x 64 row is the default: where the 128 x 128 row takes the pre-pass too
// (check_support asks only the rows of the problem's dtype and head_dim).
bool d128_prepass_rows(const KernelInfo&, const KernelInstance&, const ProblemShape& p) {
    return use_vt_prepass<WgmmaFp8D128>(p.seqlen_q, p.heads_per_kv(), p.causal);
}
constexpr DefaultRule kD128PrepassRows{&d128_prepass_rows, "seqlen_q x heads per K/V head >= 4096 (causal: 8192)"};

template <class Config>
KernelInstance fp8_prepass_instance(DefaultRule rule) {
    using Tp = Fp8Traits<Config, true>;
    return instance_of<Tp>(reinterpret_cast<const void*>(&wgmma_fp8_fwd_kernel<Tp>), &launch_wgmma_fp8_prepass<Config>,
                           Tp::kNThreads, rule);
}

// One registry row per tile for both ways (the rule above picks; the tile is the same): the
// in-kernel transpose's kernel for --list's registers, the larger shared memory of the two.
template <class Config, class PrepassConfig = Config>
KernelInstance fp8_instance() {
    using Tt = Fp8Traits<Config, false>;
    using Tp = Fp8Traits<PrepassConfig, true>;
    KernelInstance inst = instance_of<Tt>(reinterpret_cast<const void*>(&wgmma_fp8_fwd_kernel<Tt>),
                                          &launch_wgmma_fp8<Config, PrepassConfig>);
    inst.smem_bytes = static_cast<std::size_t>(Tt::kSmemBytes > Tp::kSmemBytes ? Tt::kSmemBytes : Tp::kSmemBytes);
    return inst;
}

}  // namespace

// The instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills), each in two
// kernels (in-kernel transpose / pre-pass), each of those built twice (tiles / tail chunks, the same
// registers):
//   dtype  D    M x N x threads (+128 launched)  stages  smem (B)            regs (entry/producer/consumer)
//   e4m3   128  128 x 128 x 256                  4       197,760 / 181,352   168 / 72 / 216, pre-pass 24 / 240
//   e4m3   128  192 x 64 x 384 (pre-pass only)   4       140,392             128 / 24 / 160
//   e4m3   256  128 x 64 x 256                   4       214,144 / 230,504   168 / 40 / 232, pre-pass 24 / 240
// (in-kernel: + 3 raw V staging slots, O staged in them and in Q; pre-pass: O's own staging
// buffer). At producer 56 / consumer 224 ptxas spilled 36 B, at 64 / 216 8 B (in-kernel transpose).
// Q in registers (every config since session 22) keeps Q's shared-memory copy: TMA lands it there
// and each consumer thread reads its 16 / 32 words once.
// Rung 8's workspace: the pre-pass's Vᵀ where the problem may take it, else none. At head_dim 128
// that is every problem, since the 192 x 64 row (chosen with --m_block_size) runs the pre-pass
// whatever the problem; at 256, where use_vt_prepass holds.
std::size_t wgmma_fp8_workspace_bytes(const ProblemShape& p) {
    if (p.dtype != DType::Float8E4M3FN) return 0;
    const bool prepass = p.head_dim == WgmmaFp8D256::kHeadDim
                             ? use_vt_prepass<WgmmaFp8D256>(p.seqlen_q, p.heads_per_kv(), p.causal)
                             : p.head_dim == WgmmaFp8D128::kHeadDim;
    return prepass ? vt_bytes(p.batch, p.kv_heads(), p.head_dim, p.seqlen_k) : 0;
}

const std::vector<KernelInstance>& wgmma_fp8_instances() {
    static const std::vector<KernelInstance> instances = {
        fp8_instance<WgmmaFp8D128, WgmmaFp8D128Prepass>(),
        fp8_prepass_instance<WgmmaFp8D128M192>(kD128PrepassRows),
        fp8_instance<WgmmaFp8D256, WgmmaFp8D256Prepass>(),
    };
    return instances;
}

}  // namespace fa
