#!/usr/bin/env bash
# The README's two commands, on a fresh Debian machine with the CUDA toolkit:
#   scripts/dev.sh run    install what is missing, build, run fa-bench's default problem
#   scripts/dev.sh test   install what is missing, build, run every test (CTest: Catch2 unit
#                         tests, the CLI checks, the GPU tests — skipped visibly without a GPU —
#                         and the scripts' pytest suite)
#   scripts/dev.sh regs [lib/kernels/X.cu ...]
#                         registers, stack and spill bytes of every kernel instance of those
#                         files (default: all of lib/kernels), from ptxas -v with the build's own
#                         flags (scripts/ptxas_report.py); no GPU needed
#   scripts/dev.sh loops [--kernel REGEX] [OTHER]
#                         the built fa-bench's hot loops, or whether they differ from OTHER's (a
#                         binary or cuobjdump -sass text; scripts/sass_loops.py); no GPU needed
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

configure() {
    local arch=()
    [[ -n "${CMAKE_CUDA_ARCHITECTURES:-}" ]] && arch=(-DCMAKE_CUDA_ARCHITECTURES="$CMAKE_CUDA_ARCHITECTURES")
    cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFA_PYTHON="$venv/bin/python" "${arch[@]}"
}

configure_and_build() {
    configure
    cmake --build "$build" -j "$(nproc)"
}

# ptxas -v for each kernel source through the build's own compile command (ninja knows it: the
# architectures and flags CMake chose), the object written nowhere.
kernel_registers() {
    local files=("$@") status=0
    ((${#files[@]})) || files=("$repo"/lib/kernels/*.cu)
    [[ -f "$build/build.ninja" ]] || configure  # the compile commands only; nothing is built
    local targets
    targets="$(ninja -C "$build" -t targets all | sed -n 's/^\(.*\/kernels\/[^/]*\.cu\.o\): .*/\1/p')"
    for f in "${files[@]}"; do
        local base found=0 target cmd
        base="$(basename "$f")"
        # A source may be compiled into more than one library (e.g. once portable, once for sm_90a).
        while read -r target; do
            [[ -n "$target" ]] || continue
            found=1
            cmd="$(ninja -C "$build" -t commands "$target" | tail -n 1 |
                sed -E 's/ -MD -MT [^ ]+ -MF [^ ]+//; s/ -o [^ ]+$/ -o \/dev\/null/')"
            echo "== $base ($(basename "$(dirname "$(dirname "$target")")"))"
            (cd "$build" && eval "$cmd -Xptxas -v") 2>&1 | python3 "$repo/scripts/ptxas_report.py" || status=$?
        done < <(grep "/kernels/$base.o\$" <<<"$targets" || true)
        if ((!found)); then
            echo "dev.sh regs: $f is not a kernel source of this build (lib/kernels/*.cu)" >&2
            status=2
        fi
    done
    return "$status"
}

usage() {
    echo "usage: scripts/dev.sh run [fa-bench flags...] | scripts/dev.sh test | scripts/dev.sh regs [lib/kernels/X.cu ...]" \
         "| scripts/dev.sh loops [--kernel REGEX] [OTHER]"
}

case "$mode" in
    -h|--help)
        usage
        echo "  run   install what is missing (apt), build, run fa-bench (flags go to it)"
        echo "  test  install what is missing, build, make build/venv (scripts/requirements.txt), run CTest"
        echo "  regs  registers / stack / spill bytes per kernel instance of those files (ptxas -v, the build's flags)"
        echo "  loops the built fa-bench's hot loops (cuobjdump -sass), or whether they differ from OTHER's"
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
    regs)
        install_missing
        kernel_registers "$@"
        ;;
    loops)
        [[ -x "$build/fa-bench" ]] || { echo "dev.sh loops: no $build/fa-bench (build it first)" >&2; exit 2; }
        exec python3 "$repo/scripts/sass_loops.py" "$build/fa-bench" "$@"
        ;;
    *)
        usage >&2
        exit 2
        ;;
esac
