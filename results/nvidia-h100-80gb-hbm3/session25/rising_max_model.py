#!/usr/bin/env python3
"""Session 25: rung 8's arithmetic (08_wgmma_fp8.cu) on the inputs of the GPU test "every kernel
matches the reference when the row max rises from tile to tile", against an FP64 reference on the
dequantized inputs, as the test checks it. Inputs e4m3-quantized with the per-tensor power-of-two
scale (fa/fp8.h), key tiles visited last to first, the lazy max per row (slack 3.75), P =
2^(s - m + 5) rounded to e4m3 for O, its fp32 value summed into l. Prints rel_l2 and max_abs/max|ref|
for the test's first V, ((131j + 37c + 11h) mod 17 - 8) / 4, and for the hashed V the test uses since.
Call 1 of session 25 measured rel_l2 0.101 for the first V at head_dim 256, 65 x 129 keys (the model
gives 0.095: the kernel does what its arithmetic says; the V summed to zero over any 17 keys)."""
import numpy as np

LOG2E = 1.4426950408889634


def e4m3(x):
    a = np.abs(x)
    out = np.zeros_like(a)
    sub = a < 2.0**-6
    out[sub] = np.rint(a[sub] * 512) / 512
    e = np.floor(np.log2(np.where(sub, 1.0, a)))
    out[~sub] = np.minimum((np.rint(a / 2**e * 8) / 8 * 2**e)[~sub], 448.0)
    return np.sign(x) * out


def quantize(x):
    k = int(np.floor(np.log2(448.0 / np.abs(x).max())))
    return e4m3(x * 2.0**k), 2.0**-k


def mix32(x):
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    return x ^ (x >> 16)


def inputs(d, sk, causal, hashed_v, heads=2):
    sq = sk if causal else 65
    scale = 1 / np.sqrt(d)
    q = np.zeros((sq, heads, d)); k = np.zeros((sk, heads, d)); v = np.zeros((sk, heads, d))
    mid = 0.5 * (sk - 1)
    c = np.arange(d)
    for h in range(heads):
        for r in range(sq):
            q[r, h, 0] = 1; q[r, h, 1] = 0.25 * ((r * 3 + h) % 5 - 2)
        for j in range(sk):
            k[j, h, 0] = 6 / 64 * (mid - abs(j - mid)) / (scale * LOG2E)
            k[j, h, 1] = ((j * 7 + h) % 9 - 4) / (scale * LOG2E)
            if hashed_v:
                v[j, h, :] = [(mix32(j * 65536 + cc * 8 + h) % 17 - 8) / 4 for cc in range(d)]
            else:
                v[j, h, :] = ((j * 131 + c * 37 + h * 11) % 17 - 8) / 4
    return q.astype(np.float32), k.astype(np.float32), v.astype(np.float32), scale


def rung8(d, sk, causal, block_n, hashed_v, p_offset=5.0, slack=3.75):
    q, k, v, scale = inputs(d, sk, causal, hashed_v)
    qq, qd = quantize(q); kq, kd = quantize(k); vq, vd = quantize(v)
    sl = scale * LOG2E * qd * kd
    sq = q.shape[0]
    err2 = ref2 = 0.0; max_err = max_ref = 0.0
    visible = np.arange(sk)[None, :] <= np.arange(sq)[:, None]
    for h in range(q.shape[1]):
        s_all = qq[:, h, :].astype(np.float64) @ kq[:, h, :].T
        sr = s_all * qd * kd * scale
        if causal: sr = np.where(visible, sr, -np.inf)
        pr = np.exp(sr - sr.max(1, keepdims=True))
        ref = pr @ (vq[:, h, :] * vd) / pr.sum(1, keepdims=True)
        o = np.zeros((sq, d)); l = np.zeros(sq); m = np.full(sq, -np.inf)
        for t in reversed(range((sk + block_n - 1) // block_n)):
            cols = np.arange(t * block_n, min(sk, (t + 1) * block_n))
            s = s_all[:, cols] * sl
            if causal: s = np.where(visible[:, cols], s, -np.inf)
            tile_max = s.max(1)
            with np.errstate(invalid='ignore'):
                rise = (np.isinf(m) & np.isfinite(tile_max)) | (np.maximum(m, tile_max) - m > slack)
            m_new = np.where(rise, np.maximum(m, tile_max), m)
            alpha = np.where(np.isfinite(m), np.exp2(np.where(np.isfinite(m), m, 0) - m_new), 0.0)
            o *= alpha[:, None]; l *= alpha; m = m_new
            with np.errstate(invalid='ignore'):
                p = np.nan_to_num(np.exp2(s - (m - p_offset)[:, None]))
            l += p.sum(1)
            o += e4m3(p) @ vq[cols, h, :]
        e = o / l[:, None] * vd - ref
        err2 += (e**2).sum(); ref2 += (ref**2).sum()
        max_err = max(max_err, np.abs(e).max()); max_ref = max(max_ref, np.abs(ref).max())
    return np.sqrt(err2 / ref2), max_err / max_ref


if __name__ == '__main__':
    for d, block_n in ((128, 128), (256, 64)):
        for sk in (1000, 129):
            for causal in (False, True):
                a = rung8(d, sk, causal, block_n, False); b = rung8(d, sk, causal, block_n, True)
                print(f'd{d} keys {sk} causal {int(causal)}: first V rel_l2 {a[0]:.4f} max {a[1]:.4f}; '
                      f'hashed V rel_l2 {b[0]:.4f} max {b[1]:.4f}')
