#!/usr/bin/env bash
# Session 34 call 7 (run inline on call 6's warm machine; recorded here as run): compute-sanitizer memcheck,
# racecheck and synccheck on r3's rung 3 (`mma`), bf16, head_dim 64 / 128 / 256 (256 not instantiated),
# sanitize.sh's Sq 300, Sk 777, causal 0 and 1.
mkdir -p $OUT/logs && tar -xJf .exp/s34r3.tar.xz -C /tmp && DTYPES=BFloat16 timeout 120 bash scripts/sanitize.sh /tmp/r3/fa-bench mma > $OUT/logs/sanitize_r3.log 2>&1; echo "sanitize rc=$? $(grep -c clean $OUT/logs/sanitize_r3.log) clean, $(grep -c FAILED $OUT/logs/sanitize_r3.log) failed"; cat $OUT/logs/sanitize_r3.log | cut -c1-100
