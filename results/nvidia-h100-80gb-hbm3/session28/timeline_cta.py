# Session 28: per-CTA timeline of the DIAGNOSTIC build (persistent_p4_p5_timeline.patch, FA_FP8_TIMELINE),
# call 1 layout: logs/timeline_{0..3}.bin (xz -d the .bin.xz first), 12 clock64 words per CTA.
import numpy as np, sys, collections
for i,name in enumerate(["4x16x8192 nc","2x16x16384 nc","4x16x8192 causal","1x16x16384 causal"]):
    b=open(f'logs/timeline_{i}.bin','rb').read()
    n=np.frombuffer(b[:4],np.uint32)[0]
    a=np.frombuffer(b[4:],np.uint64).reshape(n,12).astype(np.int64)
    t0=a[:,0]; sm=a[:,1]>>32; nt=a[:,1]&0xffffffff
    q=a[:,11]; s0=a[:,2:5]; le=a[:,5:8]; sd=a[:,8:11]
    end=sd.max(1)
    # per-SM gaps
    gaps=[]; 
    for s in np.unique(sm):
        idx=np.where(sm==s)[0]; idx=idx[np.argsort(t0[idx])]
        for x,y in zip(idx[:-1],idx[1:]): gaps.append(t0[y]-end[x])
    gaps=np.array(gaps)
    dur=end-t0
    # fit dur = F + c*nt
    print(f'  median nt {np.median(nt)}, mean dur {dur.mean():.0f}, sum(dur+gap)/SM {(dur.sum()+gaps.sum())/132:.0f}, max SM busy')
    A=np.vstack([np.ones(n),nt]).T
    coef=np.linalg.lstsq(A,dur,rcond=None)[0]
    print(f"== {name}: CTAs {n}, key tiles {nt.min()}-{nt.max()}; SMs {len(np.unique(sm))}")
    print(f"  gap between CTAs on an SM (cycles): median {np.median(gaps):.0f} p10 {np.percentile(gaps,10):.0f} p90 {np.percentile(gaps,90):.0f}")
    print(f"  entry->Q landed {np.median(q-t0):.0f}, Q->S0 wg0 {np.median(s0[:,0]-q):.0f}, S0 wg0/1/2 rel {np.median(s0[:,1]-s0[:,0]):.0f} {np.median(s0[:,2]-s0[:,0]):.0f}")
    print(f"  loop end wg0/1/2 - S0 wg0: per key tile {np.median((le[:,0]-s0[:,0])/np.maximum(nt-1,1)):.1f}")
    print(f"  loop end spread (wg max-min) {np.median(le.max(1)-le.min(1)):.0f}; store (end of store - loop end) wg {np.median(sd[:,0]-le[:,0]):.0f} {np.median(sd[:,1]-le[:,1]):.0f} {np.median(sd[:,2]-le[:,2]):.0f}")
    print(f"  fit dur = {coef[0]:.0f} + {coef[1]:.1f} * key_tiles cycles; median dur {np.median(dur):.0f}")
    fixed = (q-t0) + (s0[:,0]-q) + (sd.max(1)-le.min(1))
    slot=np.median(dur)+np.median(gaps)
    print(f"  fixed (entry..S0 + loop end first..store done last) median {np.median(fixed):.0f} + gap -> {np.median(fixed)+np.median(gaps):.0f} = {100*(np.median(fixed)+np.median(gaps))/slot:.1f}% of slot")
