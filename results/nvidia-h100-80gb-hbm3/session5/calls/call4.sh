#!/usr/bin/env bash
# Session 5 call 4: mma/warp_specialized softmax without per-row branches (fb_new) vs committed (fb_base); d64 min-blocks 3.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
for v in fb_base fb_new; do cuobjdump -sass -fun mma_fwd_kernel $B/$v > /dev/null 2>&1; cuobjdump -sass $B/$v | awk '/Function :/{f=$3} /BSSY|BRA|MUFU.EX2|STL|LDL|HMMA/{split($0,a,";"); n=split(a[1],w," "); for(i=1;i<=n;i++) if(w[i] ~ /^(BSSY|BRA|MUFU.EX2|STL|LDL|HMMA)/){split(w[i],o,"."); c[f" "o[1]]++}} END{for(k in c) print k, c[k]}' | grep -E "mma_fwd|warp_specialized_fwd" | sort > $L/sass_$v.txt; done
$B/fb_base --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
for r in 1 2; do
  for v in fb_base fb_new fb_new_mb3; do
    timeout 40 $B/$v $D --kernel mma,warp_specialized --causal 0,1 --csv $L/$v.csv >> $L/bench.log 2>&1
    [ $v = fb_new_mb3 ] || timeout 40 $B/$v $A --kernel mma,warp_specialized --causal 0,1 --csv $L/$v.csv >> $L/bench.log 2>&1
  done
done
echo "bench t=$(( $(date +%s)-t0 ))"
python3 - $L <<'PY'
import csv,sys,glob,os,collections
d=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/fb_*.csv')):
    v=os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        d[(r['kernel'],r['head_dim'],r['is_causal'],v)].append(float(r['tflops']))
for k in sorted(d): print(*k, ' '.join('%.1f'%x for x in d[k]))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
