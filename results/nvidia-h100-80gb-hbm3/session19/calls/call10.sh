#!/usr/bin/env bash
# Session 19 call 10: the energy columns again (energy_mj, gflop_per_j from NVML's energy counter) on the
# device, after call 9: the counter steps every 100 ms and a reading takes ~5 ms per NVML query, so
# s19e (= s19a's kernels + the columns) reads the counter first, stamps the time before the read and
# needs 0.5 s between the first and last steps. Rows here time >= 1 s (--min_time 1). (1) How often NVML's energy counter steps under load
# (a ctypes probe reading it every 1 ms for 1.5 s while fa-bench runs); (2) fa-bench and peers.py
# (cuDNN, SDPA) rows with 3 s of warm-up at two of call 8's points: energy_mj against
# power_w_mean x time_ms_median, and their GFLOP/J next to call 8's; (3) a 5 + 30 burst, whose
# window is too short for the counter (energy empty).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/d
tar -xJf .exp/s19e.tar.xz -C /tmp/d; N=/tmp/d/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
( $N --kernel wgmma_persistent --batch_size 32 --seqlen_q 512 --seqlen_k 512 --head_dim 128 --warmup_time 6 --skip_ref_check > /dev/null 2>&1 & )
sleep 3
python3 - > $L/energy_probe.txt <<'PY'
import ctypes, time
lib = ctypes.CDLL("libnvidia-ml.so.1"); lib.nvmlInit_v2()
h = ctypes.c_void_p(); lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h))
e = ctypes.c_ulonglong(); p = ctypes.c_uint()
vals = []
t0 = time.monotonic()
while time.monotonic() - t0 < 1.5:
    lib.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(e)); vals.append((time.monotonic() - t0, e.value))
    time.sleep(0.001)
steps = [(t, v) for (t, v), (_, u) in zip(vals[1:], vals) if v != u]
gaps = [round(1e3 * (b[0] - a[0]), 1) for a, b in zip(steps, steps[1:])]
lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(p))
print(f"{len(vals)} reads, {len(steps)} steps; step gaps (ms): {gaps[:40]}")
if len(steps) > 1:
    print(f"mean power over steps {(steps[-1][1] - steps[0][1]) / (steps[-1][0] - steps[0][0]) / 1e3:.1f} W; "
          f"nvmlDeviceGetPowerUsage {p.value / 1e3:.1f} W")
PY
cat $L/energy_probe.txt
sleep 1; while pgrep -f "fa-bench --kernel wgmma_persistent" > /dev/null; do sleep 0.5; done  # the probe's load has ended
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
$N --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128 --kernel wgmma_persistent $W --skip_ref_check --csv $L/energy.csv >> $L/fa.log 2>&1
timeout 90 python3 scripts/peers.py --backends cudnn --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128 --causal 0 $W --fa-bench $N --csv $L/energy.csv >> $L/peers.log 2>&1
$N --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --kernel wgmma_overlap $W --skip_ref_check --csv $L/energy.csv >> $L/fa.log 2>&1
timeout 90 python3 scripts/peers.py --backends cudnn --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0 $W --fa-bench $N --csv $L/energy.csv >> $L/peers.log 2>&1
$N --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128 --kernel wgmma_persistent --iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0 --skip_ref_check --csv $L/energy.csv >> $L/fa.log 2>&1
python3 - $L/energy.csv <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    t, w, e = r['time_ms_median'], r['power_w_mean'], r['energy_mj']
    est = f"{float(w) * float(t):.1f}" if t and w else ''
    print(r['kernel'], r['batch_size'], r['seqlen_q'], 'tflops', r['tflops'][:6], 'MHz', r['sm_clock_mean_mhz'][:6], 'W', w[:6],
          'energy_mj', e, '(power x time', est + ')', 'gflop_per_j', r['gflop_per_j'], 'samples', r['clock_samples'], 'iters', r['iterations'])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
