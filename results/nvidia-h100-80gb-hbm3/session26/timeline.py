"""Session 26: reads the 'TL wg W t T c0..c7' lines of a timeline build (timeline.patch: clock() at
eight points of each consumer warpgroup's loop, CTA 0, warp 0 lane 0, key tiles 8-39) and prints
each warpgroup's per-tile durations and the phase between the two warpgroups' S landings.
Points (timeline.patch / timeline_token_on.patch): 0 batch start, 1 K(t+1) waited, 2 issue token
taken, 3 GEMMs issued, 4 S landed, 5 softmax done, 6 Vᵀ waited, 7 P·V done. The softmax-token
build (call 2, softmax_token.patch + the same points): 2 GEMMs issued, 3 S landed, 4 token taken."""
import statistics
import sys

rows = {}
for line in open(sys.argv[1]):
    if line.startswith('TL'):
        f = line.split()
        rows[(int(f[2]), int(f[4]))] = [int(x) for x in f[5:13]]
names = sys.argv[2].split(',') if len(sys.argv) > 2 else ['K', 'token', 'issue', 'S', 'softmax', 'V', 'PV']
for wg in (0, 1):
    period = statistics.median(rows[(wg, t + 1)][0] - rows[(wg, t)][0] for t in range(8, 39))
    parts = [statistics.median(rows[(wg, t)][i + 1] - rows[(wg, t)][i] for t in range(8, 40)) for i in range(7)]
    tail = statistics.median(rows[(wg, t + 1)][0] - rows[(wg, t)][7] for t in range(8, 39))
    print(f'wg{wg}: period {period:.0f} cycles; ' + ', '.join(f'{n} {p:.0f}' for n, p in zip(names, parts)) + f', tail {tail:.0f}')
s_landed = 4 if names[3] == 'S' else 3
phase = [rows[(1, t)][s_landed] - rows[(0, t)][s_landed] for t in range(8, 40)]
print(f'S landing, wg1 - wg0: median {statistics.median(phase):.0f} cycles (range {min(phase)} .. {max(phase)})')
