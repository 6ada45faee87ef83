"""The peers' timing harness, as fa-bench times its own rows (app/timing.cpp, app/measurer.cpp).

Untimed warm-up launches (a count, then seconds of GPU time; more after the GPU idled), then each
timed launch between its own pair of CUDA events, in batches until a minimum time or a wall-time
limit, each next batch queued before the one in flight is waited for, as fa-bench's (time_launches);
median, min, max and noise (stddev / mean) of those times (timing_stats).
torch is passed in by the caller, so this module imports without it. The NVML readings during the
timed launches are gpu_clocks.py's.
"""
from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Callable, Sequence


def timing_stats(times_ms: Sequence[float]) -> dict[str, float]:
    """Median/min/max and noise = 100·stddev/mean (population stddev, as over the whole run)."""
    mean = statistics.fmean(times_ms)
    return {
        "time_ms_median": statistics.median(times_ms),
        "time_ms_min": min(times_ms),
        "time_ms_max": max(times_ms),
        "noise_pct": 100.0 * statistics.pstdev(times_ms) / mean if mean > 0 else 0.0,
    }



def enqueue_gpu_sleep(torch, ms: float, clock_mhz: float) -> None:
    """Park the stream in a spin kernel for ~ms so the CPU can queue every timed launch behind it.

    Without it, Python's launch cost (~20-50 µs per SDPA call, more for the CuTe DSL backends)
    can exceed the kernel itself on the small grid points (B=32, S=512, H=32, D=64 is 8.6 GFLOP:
    ~20 µs at 400 TFLOP/s), and the GPU would idle inside the timed interval.
    torch.cuda._sleep is private; skip it if it is gone.
    """
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(int(ms * 1e-3 * clock_mhz * 1e6))


# A row that starts at least this long after the GPU last ran timed launches of this process (or
# the process's first row) warms up for max(warmup_time, gpu_warmup_time): the GPU idled through a
# backend's JIT compile (FA4, the CuTe DSL example: seconds per new shape), the inputs, the
# reference, and its clocks and power state are what idling left. fa-bench's --gpu_warmup_time
# does this for a process's first row; its later rows follow each other within the host-side
# check. Measured (H100, session 14 calls 3 and 5): with 0.2 s of warm-up, FA4's and cuDNN's rows
# after a compile read 270-340 W mean power at 1,600-1,720 MHz where fa-bench's read ~700 W at
# ~1,500, and with 3 s they came out 1-7 % slower (FA4 1x16x16384x128 causal 679 -> 631).
IDLE_GAP_S = 0.5


class GpuIdle:
    """When this process last had the GPU busy with timed launches (time.perf_counter)."""

    def __init__(self) -> None:
        self.last_busy: float | None = None

    def idle_now(self) -> bool:
        return self.last_busy is None or time.perf_counter() - self.last_busy >= IDLE_GAP_S

    def mark_busy(self) -> None:
        self.last_busy = time.perf_counter()


def time_launches(torch, launch: Callable[[], object], settings: "Settings",
                  flush_l2: Callable[[], object] | None,
                  clock_mhz: float, host_us_per_call: float, sampler=None, idle: GpuIdle | None = None) -> dict:
    """Time `launch` the way fa-bench does (app/timing.cpp), so a peer's row and fa-bench's stand in
    the same power and clock state (a GPU at its power cap clocks down after ~0.1 s of dense math;
    five warm-ups and twenty timed launches of a 3 ms kernel end before that, fa-bench's rows do not):

    - warm-up: settings.warmup_iterations launches, then batches of settings.iterations launches,
      each batch between one event pair, until their GPU time reaches settings.warmup_time seconds,
      or settings.gpu_warmup_time when `idle` says the GPU idled before this row (IDLE_GAP_S);
    - timed: batches of settings.iterations launches, each launch between its own event pair,
      until the launches' times sum to settings.min_time seconds (at least one batch), or the
      timed part has taken settings.max_time seconds of wall time. With min_time 0 that is exactly
      settings.iterations launches (peers.py: --iterations given).

    The batches are pipelined as fa-bench's (run_timed_batches): the next batch is queued before
    the one in flight is waited for (on its last event), so the GPU does not drain between batches,
    and the batch queued past the stop is waited for but not counted. Until session 29 every batch
    sat behind a spin kernel (enqueue_gpu_sleep) and was waited for with torch.cuda.synchronize():
    a few ms of near-idle GPU per batch, which let the peer's kernels run cooler and faster than
    fa-bench's back-to-back rows. Session 29 call 3 (H100 SXM, the same kernels, old -> this
    harness, TFLOP/s at mean SM MHz): cuDNN 32x16x512x128 529.9 @ 1,822-1,865 -> 453.4 @
    1,402-1,438, 4x16x8192x128 615.2 -> 601.0, 2x32x8192x64 454.1 -> 446.6; FA2 300.5 -> 282.6,
    352.7 -> 349.9, 310.4 -> 302.6. The spin kernel now precedes a batch only where one launch takes
    less than the backend's host cost per call (the CPU could not stay ahead of the GPU, and a
    launch's events would time the CPU), and before the first two batches.

    flush_l2, when given, runs before each timed launch, outside the events. sampler, when given
    (a gpu_clocks.ClockSampler), reads the GPU's clocks from the first timed batch to the last, as
    fa-bench's rows do. Returns the per-launch times in ms, the warm-up launch count, the warm-up's
    GPU time in ms and the sampler's readings (None without one)."""
    warmup_time = settings.warmup_time
    if idle is not None and idle.idle_now():
        warmup_time = max(warmup_time, settings.gpu_warmup_time)
    n = settings.iterations
    host_ms = (host_us_per_call + 50.0) * 1e-3  # the backend's call, two event records, an L2 flush

    def spin_for(batches: int) -> None:  # long enough for the CPU to queue that many batches
        enqueue_gpu_sleep(torch, min(batches * host_ms * n, 200.0), clock_mhz)

    def queue_warmup() -> _Batch:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            launch()
        end.record()
        return _Batch(False, [start], [end])

    def queue_timed() -> _Batch:
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        for start, end in zip(starts, ends):
            if flush_l2 is not None:
                flush_l2()
            start.record()
            launch()
            end.record()
        return _Batch(True, starts, ends)

    for _ in range(settings.warmup_iterations):
        launch()
    warmup_launches, warmup_ms = settings.warmup_iterations, 0.0
    times: list[float] = []
    est_ms = 0.0  # one launch's time, once a batch has been waited for
    wall_start = None
    samples = None
    # The first batch and the one queued behind it go out while the GPU spins.
    spin_for(2)
    try:
        in_flight = None
        warming = warmup_time > 0
        while True:
            # What goes next: warm-up while the warm-up time (waited for, plus the batch in flight
            # as estimated) falls short; then timed batches, one only for a fixed count.
            in_flight_warm_ms = est_ms * n if in_flight is not None and not in_flight.timed else 0.0
            if warming and warmup_ms + in_flight_warm_ms < warmup_time * 1e3:
                following = queue_warmup()
            elif wall_start is None or settings.min_time > 0:
                warming = False
                if est_ms and est_ms < host_ms:
                    spin_for(1)
                if wall_start is None:
                    wall_start = time.perf_counter()
                    if sampler is not None:
                        sampler.start()
                following = queue_timed()
            else:
                following = None  # the fixed count's one timed batch is in flight
            if in_flight is not None:
                done = in_flight.wait()
                if not in_flight.timed:
                    warmup_launches += n
                    warmup_ms += done[0]
                    est_ms = done[0] / n
                    if done[0] <= 0:  # a clock that does not advance would never end the warm-up
                        warming = False
                else:
                    times += done
                    total = sum(times)
                    est_ms = total / len(times)
                    if settings.min_time <= 0 or total >= settings.min_time * 1e3 or total <= 0 or \
                            time.perf_counter() - wall_start >= settings.max_time:
                        if sampler is not None:
                            samples, sampler = sampler.stop(), None
                        if following is not None:
                            following.wait()  # queued past the stop: not counted
                        break
            in_flight = following
    finally:  # the sampler's thread ends with the timed part, also when a launch raises
        if sampler is not None and wall_start is not None:
            samples = sampler.stop()
    if idle is not None:
        idle.mark_busy()
    return {"times": times, "warmup_iterations": warmup_launches, "warmup_ms": warmup_ms, "clock_samples": samples}


@dataclasses.dataclass
class _Batch:
    """Launches queued between event pairs: one pair around a warm-up batch, one per timed launch."""
    timed: bool
    starts: list
    ends: list

    def wait(self) -> list[float]:
        """The batch's times in ms once its last event has passed (the work queued after it runs on)."""
        self.ends[-1].synchronize()
        return [start.elapsed_time(end) for start, end in zip(self.starts, self.ends)]


def l2_flusher(torch, device: int):
    """A function that overwrites 2× L2 (H100: 2 × 50 MiB), evicting q, k, v and o from L2."""
    l2_bytes = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 50 * 2 ** 20
    buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device=f"cuda:{device}")
    return buffer.zero_


@dataclasses.dataclass
class Settings:
    """How every backend is measured (the command line's measurement flags)."""
    warmup_iterations: int
    iterations: int
    use_cold_l2: bool
    check: bool
    seed: int
    device: int
    num_splits: tuple = (0,)  # split counts of the backends that take one (0: the backend's heuristic)
    # fa-bench's stopping rule, minus its noise target (time_launches): seconds of GPU time.
    warmup_time: float = 0.0
    gpu_warmup_time: float = 0.0  # a row after the GPU idled (time_launches, IDLE_GAP_S)
    min_time: float = 0.0
    max_time: float = 2.0
