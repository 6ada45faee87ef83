"""wgmma_guard.sh, the CUDA compiler launcher: a compile whose ptxas output says it serialized
wgmma.mma_async fails; every other compile keeps its own exit status and output."""
import subprocess
from pathlib import Path

GUARD = Path(__file__).resolve().parents[1] / "wgmma_guard.sh"
# ptxas's line from session 23 call 2's build (rung 8 with P copied between register buffers).
C7513 = ("ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async instructions are "
         "serialized due to non wgmma instructions defining input registers of a wgmma between start "
         "and end of the pipeline stage in the function '_Z6kernelv'")


def run(script: str):
    """The guard launching `sh -c script`, as CMake launches nvcc."""
    return subprocess.run([str(GUARD), "sh", "-c", script], capture_output=True, text=True, check=False)


def test_serialized_wgmma_fails_the_compile_and_says_why():
    res = run(f"echo \"{C7513}\" >&2; exit 0")
    assert res.returncode == 1
    assert "(C7513)" in res.stderr  # ptxas's own line is passed on
    assert "wgmma_guard.sh: ptxas serialized wgmma.mma_async" in res.stderr
    assert "FA_WGMMA_GUARD=OFF" in res.stderr


def test_register_shortage_c7512_fails_too():
    line = C7513.replace("(C7513)", "(C7512)").replace(
        "non wgmma instructions defining input registers of a wgmma between start and end of the pipeline stage",
        "insufficient register resources")
    assert run(f"echo \"{line}\" >&2").returncode == 1


def test_a_clean_compile_passes_with_its_output():
    res = run("echo 'ptxas info    : Used 168 registers' >&2; echo on-stdout; exit 0")
    assert res.returncode == 0
    assert "Used 168 registers" in res.stderr and "on-stdout" in res.stderr


def test_a_failing_compile_keeps_its_exit_status():
    res = run(f"echo 'error: expected a ;' >&2; echo \"{C7513}\" >&2; exit 3")
    assert res.returncode == 3
    assert "expected a ;" in res.stderr
    assert "wgmma_guard.sh:" not in res.stderr  # the compiler's own error comes first


def test_cmake_uses_the_guard_unless_told_not_to():
    cmake = (Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text()
    assert 'option(FA_WGMMA_GUARD' in cmake
    assert "set(CMAKE_CUDA_COMPILER_LAUNCHER ${CMAKE_SOURCE_DIR}/scripts/wgmma_guard.sh)" in cmake


def test_without_a_compiler_it_prints_usage_and_fails():
    res = subprocess.run([str(GUARD)], capture_output=True, text=True, check=False)
    assert res.returncode == 2 and res.stdout.startswith("usage:")
