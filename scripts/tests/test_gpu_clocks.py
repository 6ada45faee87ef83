"""peers.py's clock columns (peer_backends/gpu_clocks.py) follow fa-bench's rules
(app/clock_sampler.cpp): the same summary, the same 95 % rule and flags, the same reason names,
and NVML read through ctypes without a Python NVML package. No GPU and no NVML are needed: a
stand-in library answers the calls."""
import ctypes
import math
import time

import pytest

from peer_backends import gpu_clocks
from peer_backends.gpu_clocks import Limits, Sample

H100 = Limits(max_sm_clock_mhz=1980.0, power_limit_w=700.0)


def test_reason_names_are_fa_benchs_lowest_bit_first_and_unknown_bits_in_hex():
    assert gpu_clocks.reason_list(0) == ""
    assert gpu_clocks.reason_list(0x4) == "sw_power_cap"
    assert gpu_clocks.reason_list(0x80 | 0x4 | 0x1) == "idle|sw_power_cap|hw_power_brake"
    assert gpu_clocks.reason_list(0x400) == "0x400"


def test_a_row_at_full_clock_without_caps_has_no_flags():
    samples = [Sample(1980.0, 650.0, 55.0, 0), Sample(1965.0, 660.0, 57.0, 0)]
    c = gpu_clocks.clock_columns(samples, H100)
    assert c["sm_clock_mean_mhz"] == pytest.approx(1972.5)
    assert c["sm_clock_min_mhz"] == 1965.0 and c["sm_clock_max_mhz"] == 1980.0
    assert c["power_w_mean"] == pytest.approx(655.0) and c["power_limit_w"] == 700.0
    assert c["temperature_c"] == 57.0 and c["clock_samples"] == 2
    assert c["throttle_reasons"] == "" and c["capped_pct"] == 0.0 and c["flags"] == ""


def test_a_power_capped_row_below_95_percent_is_flagged_clk_and_pwr():
    # 1,590 MHz mean (80 % of 1,980) with sw_power_cap in 3 of 4 readings: fa-bench's !clk,!pwr.
    samples = [Sample(1980.0, 700.0, 60.0, 0)] + [Sample(1460.0, 700.0, 60.0, 0x4)] * 3
    c = gpu_clocks.clock_columns(samples, H100)
    assert c["sm_clock_mean_mhz"] == pytest.approx(1590.0)
    assert c["throttle_reasons"] == "sw_power_cap" and c["capped_pct"] == pytest.approx(75.0)
    assert c["flags"] == "!clk,!pwr"


def test_the_mean_not_the_minimum_decides_the_95_percent_rule():
    # One dip to 1,500 among readings at 1,980 keeps the mean above 1,881 (95 %): no !clk.
    samples = [Sample(1980.0)] * 9 + [Sample(1500.0)]
    assert gpu_clocks.clock_columns(samples, H100)["flags"] == ""
    assert gpu_clocks.clock_columns([Sample(1880.0)], H100)["flags"] == "!clk"


def test_thermal_and_hardware_slowdown_have_their_own_flags():
    assert gpu_clocks.clock_columns([Sample(1980.0, reasons=0x20)], H100)["flags"] == "!thm"
    assert gpu_clocks.clock_columns([Sample(1980.0, reasons=0x8 | 0x40)], H100)["flags"] == "!thm,!hw"
    # Idle and application clocks are states, not caps.
    c = gpu_clocks.clock_columns([Sample(1980.0, reasons=0x1 | 0x2)], H100)
    assert c["flags"] == "" and c["capped_pct"] == 0.0 and c["throttle_reasons"] == "idle|applications_clocks"


def test_unreadable_quantities_stay_empty():
    c = gpu_clocks.clock_columns([Sample(), Sample()], Limits())
    assert math.isnan(c["sm_clock_mean_mhz"]) and math.isnan(c["power_w_mean"]) and math.isnan(c["capped_pct"])
    assert c["throttle_reasons"] == "" and c["flags"] == "" and c["clock_samples"] == 2


def energy(t, mj):
    return Sample(energy_mj=mj, time_s=t)


def test_the_energy_counter_gives_the_mean_power_between_its_first_and_last_steps():
    # fa-bench's test: a counter stepping 70 J every 100 ms (700 W, the H100's step), read every 10 ms
    # from 4 ms on; first step seen at 0.104 s, last at 0.804 s: 7 steps in 0.7 s.
    readings = [energy(0.004 + 0.01 * i, 1e9 + 70000.0 * math.floor((0.004 + 0.01 * i) / 0.1)) for i in range(81)]
    assert gpu_clocks.energy_power_w(readings) == pytest.approx(700.0)
    assert gpu_clocks.clock_columns(readings, H100)["energy_power_w"] == pytest.approx(700.0)
    readings.insert(5, Sample(1980.0, 700.0, 50.0, 0))  # a reading without the counter is skipped
    assert gpu_clocks.energy_power_w(readings) == pytest.approx(700.0)
    assert math.isnan(gpu_clocks.energy_power_w([energy(0.0, 5.0), energy(0.1, 5.0), energy(0.2, 9.0)]))
    assert math.isnan(gpu_clocks.energy_power_w([]))
    # Under 0.5 s between the first and last steps: NaN (a default 0.2 s row's two steps).
    assert math.isnan(gpu_clocks.energy_power_w([energy(0.0, 5e3), energy(0.1, 75e3), energy(0.3, 215e3)]))
    assert gpu_clocks.energy_power_w([energy(0.0, 5e3), energy(0.1, 75e3), energy(0.6, 425e3)]) == pytest.approx(700.0)
    assert math.isnan(gpu_clocks.energy_power_w([energy(0.0, 5.0), energy(0.1, 90.0), energy(0.2, 3.0),
                                                 energy(0.3, 9.0)]))


def test_energy_per_launch_and_flop_per_joule():
    c = gpu_clocks.energy_columns(700.0, 0.1476, 6.871947673600e10)  # d128 32x16x512, 147.6 us at 700 W
    assert c["energy_mj"] == pytest.approx(103.32)
    assert c["gflop_per_j"] == pytest.approx(6.871947673600e10 / 0.10332 / 1e9)
    c = gpu_clocks.energy_columns(float("nan"), 0.1476, 1e9)
    assert math.isnan(c["energy_mj"]) and math.isnan(c["gflop_per_j"])


class ScriptedSensor:
    """Readings 1,900, 1,901, ... MHz; None (no answer) where `gaps` says."""

    def __init__(self, gaps=()):
        self.n, self.gaps = 0, set(gaps)
        self.limits = H100

    def read(self):
        self.n += 1
        return None if self.n in self.gaps else Sample(1900.0 + self.n, 600.0, 50.0, 0)


def test_the_sampler_reads_at_both_ends_and_in_between():
    sensor = ScriptedSensor()
    sampler = gpu_clocks.ClockSampler(sensor, period=0.002)
    sampler.start()
    time.sleep(0.05)
    samples = sampler.stop()
    assert len(samples) >= 4  # start, some periodic readings, stop
    assert samples[0].sm_clock_mhz == 1901.0 and samples[-1].sm_clock_mhz == 1900.0 + sensor.n
    # Each reading carries the time it was taken, in order.
    assert all(b.time_s >= a.time_s for a, b in zip(samples, samples[1:])) and samples[-1].time_s > samples[0].time_s
    # A short timed part still gets its two end readings, and a reading that fails is left out.
    sampler = gpu_clocks.ClockSampler(ScriptedSensor(gaps={1}), period=10.0)
    sampler.start()
    assert [s.sm_clock_mhz for s in sampler.stop()] == [1902.0]


class FakeNvml:
    """libnvidia-ml.so.1 as ctypes would load it: each call writes through its byref argument."""

    def __init__(self, uuid="GPU-abc", clock=1980, power_mw=650_000, temperature=None, reasons=0x4,
                 energy_mj=123_456_789_012):
        self.uuid, self.values = uuid, {"clock": clock, "power": power_mw, "temperature": temperature}
        self.reasons, self.energy_mj = reasons, energy_mj

    @staticmethod
    def _put(ref, value):
        ref._obj.value = value
        return 0

    def nvmlInit_v2(self):
        return 0

    def nvmlDeviceGetHandleByUUID(self, uuid, handle):
        return 0 if uuid.decode() == self.uuid else 13

    def nvmlDeviceGetHandleByPciBusId_v2(self, bus_id, handle):
        return 13

    def nvmlDeviceGetMaxClockInfo(self, handle, clock_type, out):
        return self._put(out, 1980)

    def nvmlDeviceGetEnforcedPowerLimit(self, handle, out):
        return self._put(out, 700_000)

    def nvmlDeviceGetClockInfo(self, handle, clock_type, out):
        assert clock_type == gpu_clocks.NVML_CLOCK_SM
        return self._put(out, self.values["clock"])

    def nvmlDeviceGetPowerUsage(self, handle, out):
        return self._put(out, self.values["power"])

    def nvmlDeviceGetTemperature(self, handle, sensor, out):
        t = self.values["temperature"]
        return 999 if t is None else self._put(out, t)  # 999: NVML_ERROR_NOT_SUPPORTED-like

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle, out):
        return self._put(out, self.reasons)

    def nvmlDeviceGetTotalEnergyConsumption(self, handle, out):
        return 999 if self.energy_mj is None else self._put(out, self.energy_mj)


def test_nvml_through_ctypes_reads_limits_and_drops_what_the_device_does_not_answer():
    lib = FakeNvml()
    sensor, why = gpu_clocks.NvmlSensor.open("GPU-abc", "", loader=lambda name: lib)
    assert why is None
    assert (sensor.limits.max_sm_clock_mhz, sensor.limits.power_limit_w) == (1980.0, 700.0)
    s = sensor.read()
    assert (s.sm_clock_mhz, s.power_w, s.reasons) == (1980.0, 650.0, 0x4) and math.isnan(s.temperature_c)
    assert s.energy_mj == 123_456_789_012.0  # mJ past 2^32: read as 64 bits
    lib.values["temperature"] = 50  # asked once, at open, and not again
    assert math.isnan(sensor.read().temperature_c)
    sensor, _ = gpu_clocks.NvmlSensor.open("GPU-abc", "", loader=lambda name: FakeNvml(energy_mj=None))
    assert math.isnan(sensor.read().energy_mj)


def test_nvml_missing_or_a_device_it_does_not_know_is_a_reason_not_a_crash():
    def no_library(name):
        raise OSError(f"{name}: cannot open shared object file")
    sensor, why = gpu_clocks.NvmlSensor.open("GPU-abc", "", loader=no_library)
    assert sensor is None and why.startswith("libnvidia-ml.so.1 not loadable")
    sensor, why = gpu_clocks.NvmlSensor.open("GPU-other", "00000000:18:00.0", loader=lambda name: FakeNvml())
    assert sensor is None and why == "no NVML device with UUID GPU-other or PCI bus id 00000000:18:00.0"


def test_the_device_is_found_by_torchs_uuid_and_pci_location():
    import types
    props = types.SimpleNamespace(uuid="abc", pci_bus_id=0x18, pci_device_id=0, pci_domain_id=0)
    torch = types.SimpleNamespace(cuda=types.SimpleNamespace(get_device_properties=lambda device: props))
    asked = []

    class Recording(FakeNvml):
        def nvmlDeviceGetHandleByUUID(self, uuid, handle):
            asked.append(uuid.decode())
            return 13

        def nvmlDeviceGetHandleByPciBusId_v2(self, bus_id, handle):
            asked.append(bus_id.decode())
            return 0
    sensor, why = gpu_clocks.open_sensor(torch, 0, loader=lambda name: Recording())
    assert why is None and asked == ["GPU-abc", "00000000:18:00.0"]
    assert isinstance(sensor.read().sm_clock_mhz, float) and ctypes.sizeof(ctypes.c_uint) == 4
