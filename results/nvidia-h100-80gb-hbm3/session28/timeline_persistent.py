# Session 28: call 2 timelines, base per CTA (timeline_tl_*) against the persistent p2 per tile (timeline_tlp_*).
# Run from a copy of call2/ as logs/ (xz -d the .bin.xz first).
import numpy as np
def load(f):
    b=open(f,'rb').read(); n=np.frombuffer(b[:4],np.uint32)[0]
    return np.frombuffer(b[4:],np.uint64).reshape(n,12).astype(np.int64)
names=["4x16x8192 nc","4x16x8192 causal","1x16x16384 causal"]
for i,name in enumerate(names):
    a=load(f'logs/timeline_tl_{i}.bin'); p=load(f'logs/timeline_tlp_{i}.bin')
    nt=a[:,1]&0xffffffff
    print(f"== {name}")
    # base per tile: loop rate
    s0=a[:,2:5]; le=a[:,5:8]; sd=a[:,8:11]; q=a[:,11]
    rate=np.median((le[:,0]-s0[:,0])/np.maximum(nt-1,1))
    print(f"  base: loop cycles/key tile {rate:.0f}; total CTA span sum/SM {(sd.max(1)-a[:,0]).sum()/132:.0f}")
    cta=p[:,0]; pn=p[:,1]&0xffffffff; ps0=p[:,2:5]; ple=p[:,5:8]; psd=p[:,8:11]; pq=p[:,11]
    prate=np.median((ple[:,0]-ps0[:,0])/np.maximum(pn-1,1))
    print(f"  p2: loop cycles/key tile {prate:.0f}; tiles {len(p)}; CTAs {len(np.unique(cta))}")
    # per CTA sequence
    gaps=[]; q2s=[]; st=[]; bq=[]; spans=[]
    for c in np.unique(cta):
        idx=np.where(cta==c)[0]; idx=idx[np.argsort(pq[idx])]
        spans.append(psd[idx[-1]].max()-pq[idx[0]])
        for x,y in zip(idx[:-1],idx[1:]):
            gaps.append(ps0[y,0]-ple[x,0])       # WG0: loop end of tile x -> S0 of tile y
            bq.append(pq[y]-psd[x,0])            # WG0: store done -> bar_q landed of next
        q2s+=list(ps0[idx,0]-pq[idx]); st+=list(psd[idx,0]-ple[idx,0])
    print(f"  p2 WG0 loop end -> next S0 {np.median(gaps):.0f} (p90 {np.percentile(gaps,90):.0f}); store {np.median(st):.0f}; store done -> next Q landed {np.median(bq):.0f}; Q -> S0 {np.median(q2s):.0f}")
    print(f"  p2 CTA span median {np.median(spans):.0f} max {np.max(spans):.0f} min {np.min(spans):.0f}")
    # fit per tile duration
    d=psd.max(1)-pq
    A=np.vstack([np.ones(len(p)),pn]).T; coef=np.linalg.lstsq(A,d,rcond=None)[0]
    db=sd.max(1)-a[:,0]; A2=np.vstack([np.ones(len(a)),nt]).T; cb=np.linalg.lstsq(A2,db,rcond=None)[0]
    print(f"  per-tile dur fit: base {cb[0]:.0f} + {cb[1]:.1f} n ; p2 {coef[0]:.0f} + {coef[1]:.1f} n")
    print(f"  S0 stagger p2 wg1-wg0 {np.median(ps0[:,1]-ps0[:,0]):.0f} wg2-wg0 {np.median(ps0[:,2]-ps0[:,0]):.0f}; loop end spread {np.median(ple.max(1)-ple.min(1)):.0f}")
