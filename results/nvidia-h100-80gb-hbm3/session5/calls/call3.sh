#!/usr/bin/env bash
# Session 5 call 3: print the ncu reports of call 1/2 (CuTe example vs mma at d64) as text.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
export PATH=/usr/local/cuda/bin:$PATH
for r in .whl/reps/*.ncu-rep; do n=$(basename $r .ncu-rep)
  ncu --import $r --page details --print-details all > $L/$n.details.txt 2>&1
  ncu --import $r --page raw --csv > $L/$n.raw.csv 2>&1
  ncu --import $r --page source --csv --print-source sass > $L/$n.sass.csv 2>&1
done
ls -la $L
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
