"""The GPU's clocks, power and throttling while a peer's timed launches ran.

fa-bench reads NVML every 10 ms during a row's timed launches and writes what it saw into the
row (app/clock_sampler.h, app/nvml.cpp): the mean and lowest SM clock, mean power, the power
limit, the highest temperature, the clock event ("throttle") reasons, the share of readings with
a power or thermal cap, and flags (!clk, !pwr, !thm, !hw). A peer's row gets the same columns by
the same rules, read here through NVML's C library with ctypes (no Python NVML package needed),
so that two rows of one call say whether they ran at the same clock: a kernel that draws less
power per FLOP keeps a higher clock under the 700 W cap, and without the peer's clock a gap
between two rows could be either a faster kernel or a cooler one. The energy per launch
(energy_mj, gflop_per_j) comes from NVML's energy counter the same way (energy_power_w).

Without NVML (no driver library, a GPU NVML does not know) the columns stay empty and peers.py
says why once on stderr, as fa-bench does.
"""
from __future__ import annotations

import ctypes
import dataclasses
import math
import threading
import time
from typing import Callable, Sequence

# nvml.h's values, written out (as app/nvml.cpp does).
NVML_SUCCESS = 0
NVML_CLOCK_SM = 1
NVML_TEMPERATURE_GPU = 0

# Clock event reason bits and their nvidia-smi names (app/clock_sampler.h's table).
REASON_NAMES = (
    (0x1, "idle"), (0x2, "applications_clocks"), (0x4, "sw_power_cap"), (0x8, "hw_slowdown"),
    (0x10, "sync_boost"), (0x20, "sw_thermal"), (0x40, "hw_thermal"), (0x80, "hw_power_brake"),
    (0x100, "display_clocks"),
)
POWER_REASONS = 0x4 | 0x80
THERMAL_REASONS = 0x20 | 0x40
HW_SLOWDOWN = 0x8
CAP_REASONS = POWER_REASONS | THERMAL_REASONS | HW_SLOWDOWN
# The 95 % rule: a mean SM clock below this fraction of the maximum was a slowed GPU.
LOW_CLOCK_FRACTION = 0.95
SAMPLE_PERIOD_S = 0.010

# The CSV columns this module fills (fa-bench's names); energy_mj and gflop_per_j also need the
# row's median time and FLOP count (energy_columns).
COLUMNS = ("sm_clock_mean_mhz", "sm_clock_min_mhz", "sm_clock_max_mhz", "power_w_mean", "power_limit_w",
           "temperature_c", "throttle_reasons", "capped_pct", "clock_samples", "flags")
# fa-bench's kMinEnergySpan: the shortest span between the counter's first and last steps it trusts
# (the H100's counter steps every 100 ms; a reading comes every ~10 ms).
MIN_ENERGY_SPAN_S = 0.5

NAN = float("nan")


@dataclasses.dataclass
class Sample:
    """One reading; NaN (None for the reasons) where the sensor could not read a quantity."""
    sm_clock_mhz: float = NAN
    power_w: float = NAN
    temperature_c: float = NAN
    reasons: int | None = None
    energy_mj: float = NAN  # NVML's energy counter, mJ since the driver loaded
    time_s: float = 0.0     # when the sampler took the reading (time.monotonic)


@dataclasses.dataclass
class Limits:
    max_sm_clock_mhz: float = NAN
    power_limit_w: float = NAN


def reason_list(bits: int) -> str:
    """The set bits' names, lowest first, '|'-joined; an unknown bit as 0x..."""
    names = []
    for bit in range(64):
        mask = 1 << bit
        if bits & mask:
            names.append(next((n for b, n in REASON_NAMES if b == mask), f"{mask:#x}"))
    return "|".join(names)


def summarize(samples: Sequence[Sample]) -> dict:
    """fa-bench's summarize_clock_samples: NaN where no reading had the quantity."""
    clocks = [s.sm_clock_mhz for s in samples if not math.isnan(s.sm_clock_mhz)]
    powers = [s.power_w for s in samples if not math.isnan(s.power_w)]
    temps = [s.temperature_c for s in samples if not math.isnan(s.temperature_c)]
    reasons = [s.reasons for s in samples if s.reasons is not None]
    bits = 0
    for r in reasons:
        bits |= r
    return {
        "samples": len(samples),
        "sm_clock_mean_mhz": sum(clocks) / len(clocks) if clocks else NAN,
        "sm_clock_min_mhz": min(clocks) if clocks else NAN,
        "power_w_mean": sum(powers) / len(powers) if powers else NAN,
        "temperature_c_max": max(temps) if temps else NAN,
        "reasons_known": bool(reasons),
        "reasons": bits,
        "capped_pct": 100.0 * sum(1 for r in reasons if r & CAP_REASONS) / len(reasons) if reasons else NAN,
    }


def energy_power_w(samples: Sequence[Sample]) -> float:
    """fa-bench's energy_power_w: the mean power between the energy counter's first and last
    changes among the readings (the counter steps every 100 ms on the H100, a reading comes every
    ~10 ms, so each end is off by at most one reading); NaN with fewer than two changes, a span
    under MIN_ENERGY_SPAN_S, or a counter that went back."""
    first = last = prev = None
    for s in samples:
        if math.isnan(s.energy_mj):
            continue
        if prev is not None and s.energy_mj != prev.energy_mj:
            if s.energy_mj < prev.energy_mj:
                return NAN
            first = first or s
            last = s
        prev = s
    if first is None or last is first or last.time_s - first.time_s < MIN_ENERGY_SPAN_S:
        return NAN
    return (last.energy_mj - first.energy_mj) / (last.time_s - first.time_s) / 1e3


def energy_columns(power_w: float, median_ms: float, flops: float) -> dict:
    """energy_mj = power x median time (W x ms = mJ) and gflop_per_j = flops / energy; NaN stays NaN."""
    mj = power_w * median_ms
    return {"energy_mj": mj, "gflop_per_j": flops / mj / 1e6 if mj > 0 else NAN}


def flags(summary: dict, max_sm_clock_mhz: float) -> list[str]:
    """fa-bench's judge_clocks tags: !clk (mean clock < 95 % of the maximum), !pwr, !thm, !hw."""
    tags = []
    mean = summary["sm_clock_mean_mhz"]
    if not math.isnan(mean) and max_sm_clock_mhz > 0 and mean < LOW_CLOCK_FRACTION * max_sm_clock_mhz:
        tags.append("!clk")
    caps = summary["reasons"] & CAP_REASONS
    if caps & POWER_REASONS:
        tags.append("!pwr")
    if caps & THERMAL_REASONS:
        tags.append("!thm")
    if caps & HW_SLOWDOWN:
        tags.append("!hw")
    return tags


def clock_columns(samples: Sequence[Sample], limits: Limits) -> dict:
    """The row's clock columns from its readings, as fa-bench writes them."""
    s = summarize(samples)
    return {
        "sm_clock_mean_mhz": s["sm_clock_mean_mhz"],
        "sm_clock_min_mhz": s["sm_clock_min_mhz"],
        "sm_clock_max_mhz": limits.max_sm_clock_mhz,
        "power_w_mean": s["power_w_mean"],
        "power_limit_w": limits.power_limit_w,
        "temperature_c": s["temperature_c_max"],
        "throttle_reasons": reason_list(s["reasons"]) if s["reasons_known"] else "",
        "capped_pct": s["capped_pct"],
        "clock_samples": s["samples"],
        "flags": ",".join(flags(s, limits.max_sm_clock_mhz)),
        "energy_power_w": energy_power_w(samples),
    }


class NvmlSensor:
    """NVML's readings of one device, through libnvidia-ml.so.1. `open` returns (sensor, None) or
    (None, why). Each query the device does not answer on the first reading is not asked again."""

    def __init__(self, lib, handle):
        self._lib, self._handle = lib, handle
        self._queries = {"clock": True, "power": True, "temperature": True, "reasons": True, "energy": True}
        self._energy_fn = getattr(lib, "nvmlDeviceGetTotalEnergyConsumption", None)
        self._reasons_fn = getattr(lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            getattr(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
        v = ctypes.c_uint(0)
        self.limits = Limits(
            float(v.value) if lib.nvmlDeviceGetMaxClockInfo(handle, NVML_CLOCK_SM, ctypes.byref(v)) == NVML_SUCCESS
            else NAN, NAN)
        if lib.nvmlDeviceGetEnforcedPowerLimit(handle, ctypes.byref(v)) == NVML_SUCCESS:
            self.limits.power_limit_w = v.value / 1000.0
        first = self._read_all()
        self._queries = {"clock": not math.isnan(first.sm_clock_mhz), "power": not math.isnan(first.power_w),
                         "temperature": not math.isnan(first.temperature_c), "reasons": first.reasons is not None,
                         "energy": not math.isnan(first.energy_mj)}

    @classmethod
    def open(cls, uuid: str, pci_bus_id: str, loader: Callable[[str], object] = ctypes.CDLL):
        """The device by its UUID (GPU-...), else by its PCI bus id (what fa-bench uses)."""
        try:
            lib = loader("libnvidia-ml.so.1")
        except OSError as error:
            return None, f"libnvidia-ml.so.1 not loadable ({error})"
        init = getattr(lib, "nvmlInit_v2", None)
        if init is None or init() != NVML_SUCCESS:
            return None, "nvmlInit_v2 failed"
        handle = ctypes.c_void_p()
        found = bool(uuid) and lib.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(handle)) == NVML_SUCCESS
        if not found and pci_bus_id:
            found = lib.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.encode(), ctypes.byref(handle)) == NVML_SUCCESS
        if not found:
            return None, f"no NVML device with UUID {uuid or '?'} or PCI bus id {pci_bus_id or '?'}"
        sensor = cls(lib, handle)
        if not any(sensor._queries.values()):
            return None, f"NVML answers none of SM clock, power, temperature, clock event reasons for {uuid}"
        return sensor, None

    def _read_all(self) -> Sample:
        lib, h, q = self._lib, self._handle, self._queries
        s = Sample()
        # The energy counter first: the sampler stamps the reading with the time just before it.
        mj = ctypes.c_ulonglong(0)
        if q["energy"] and self._energy_fn is not None and self._energy_fn(h, ctypes.byref(mj)) == NVML_SUCCESS:
            s.energy_mj = float(mj.value)
        v = ctypes.c_uint(0)
        if q["clock"] and lib.nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, ctypes.byref(v)) == NVML_SUCCESS:
            s.sm_clock_mhz = float(v.value)
        # mW; a 1 s running average since Ampere (README: clocks and throttling).
        if q["power"] and lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(v)) == NVML_SUCCESS:
            s.power_w = v.value / 1000.0
        if q["temperature"] and lib.nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU, ctypes.byref(v)) == NVML_SUCCESS:
            s.temperature_c = float(v.value)
        bits = ctypes.c_ulonglong(0)
        if q["reasons"] and self._reasons_fn is not None and self._reasons_fn(h, ctypes.byref(bits)) == NVML_SUCCESS:
            s.reasons = int(bits.value)
        return s

    def read(self) -> Sample | None:
        s = self._read_all()
        if math.isnan(s.sm_clock_mhz) and math.isnan(s.power_w) and math.isnan(s.temperature_c) and s.reasons is None:
            return None
        return s


def open_sensor(torch, device: int, loader: Callable[[str], object] = ctypes.CDLL):
    """NVML's sensor for CUDA device `device` (found by the UUID and PCI location torch reports),
    or (None, why)."""
    props = torch.cuda.get_device_properties(device)
    uuid = getattr(props, "uuid", None)
    uuid_text = "" if uuid is None else (str(uuid) if str(uuid).startswith("GPU-") else f"GPU-{uuid}")
    bus = getattr(props, "pci_bus_id", None)
    pci = "" if bus is None else \
        f"{getattr(props, 'pci_domain_id', 0):08x}:{bus:02x}:{getattr(props, 'pci_device_id', 0):02x}.0"
    return NvmlSensor.open(uuid_text, pci, loader)


class ClockSampler:
    """Reads `sensor` from start() to stop(): once at each end and every `period` seconds in
    between, on a thread of its own (NVML calls through ctypes release the GIL), so the thread
    that launches kernels never waits for a reading."""

    def __init__(self, sensor, period: float = SAMPLE_PERIOD_S):
        self._sensor, self._period = sensor, period
        self._samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _take(self) -> None:
        t = time.monotonic()  # before the read, whose first query is the energy counter
        s = self._sensor.read()
        if s is not None:
            s.time_s = t
            self._samples.append(s)

    def _loop(self) -> None:
        next_time = time.monotonic() + self._period
        while not self._stop.wait(max(next_time - time.monotonic(), 0.0)):
            self._take()
            next_time += self._period
            now = time.monotonic()
            if next_time < now:  # a reading slower than the period: skip, do not burst
                next_time = now + self._period

    def start(self) -> None:
        self._samples, self._stop = [], threading.Event()
        self._take()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> list[Sample]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._take()
        return self._samples
