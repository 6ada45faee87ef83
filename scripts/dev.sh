#!/usr/bin/env bash
# The README's two commands, on a fresh Debian machine with the CUDA toolkit:
#   scripts/dev.sh run    install what is missing, build, run fa-bench's default problem
#   scripts/dev.sh test   install what is missing, build, run every test (CTest: Catch2 unit
#                         tests, the CLI checks, the GPU tests — skipped visibly without a GPU —
#                         and the scripts' pytest suite)
# Extra arguments after `run` go to fa-bench. BUILD_DIR (default build) and
# CMAKE_CUDA_ARCHITECTURES (default: CMakeLists.txt's 80) may be set in the environment.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build}"
venv="$build/venv"
mode="${1:-}"
shift || true

# Distribution packages fa-bench builds with (nothing is downloaded at build time).
apt_packages=(cmake ninja-build g++ libcli11-dev libfmt-dev catch2 python3 python3-venv)

install_missing() {
    local missing=()
    for p in "${apt_packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "dev.sh: installing ${missing[*]}"
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
    fi
    if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
        export PATH="/usr/local/cuda/bin:$PATH"
    fi
    command -v nvcc >/dev/null || { echo "dev.sh: nvcc not found: install the CUDA toolkit" >&2; exit 2; }
}

# The scripts' Python dependencies (pinned) in a virtual environment inside the build folder.
python_env() {
    if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$repo/scripts/requirements.txt" "$venv/requirements.txt"; then
        python3 -m venv --clear "$venv"
        "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$repo/scripts/requirements.txt"
        cp "$repo/scripts/requirements.txt" "$venv/requirements.txt"
    fi
}

configure_and_build() {
    local arch=()
    [[ -n "${CMAKE_CUDA_ARCHITECTURES:-}" ]] && arch=(-DCMAKE_CUDA_ARCHITECTURES="$CMAKE_CUDA_ARCHITECTURES")
    cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFA_PYTHON="$venv/bin/python" "${arch[@]}"
    cmake --build "$build" -j "$(nproc)"
}

case "$mode" in
    -h|--help)
        echo "usage: scripts/dev.sh run [fa-bench flags...] | scripts/dev.sh test"
        echo "  run   install what is missing (apt), build, run fa-bench (flags go to it)"
        echo "  test  install what is missing, build, make build/venv (scripts/requirements.txt), run CTest"
        echo "  BUILD_DIR (default build) and CMAKE_CUDA_ARCHITECTURES (default 80) may be set"
        exit 0
        ;;
    run)
        install_missing
        configure_and_build
        exec "$build/fa-bench" "$@"
        ;;
    test)
        install_missing
        python_env
        configure_and_build
        cd "$build"
        exec ctest --output-on-failure -j "$(nproc)"
        ;;
    *)
        echo "usage: scripts/dev.sh run [fa-bench flags...] | scripts/dev.sh test" >&2
        exit 2
        ;;
esac
