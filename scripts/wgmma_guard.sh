#!/bin/sh
# CMake's CUDA compiler launcher (CMakeLists.txt, FA_WGMMA_GUARD): runs the compile command it is
# given, passes its output on, and fails the compile when ptxas says it serialized a kernel's
# wgmma.mma_async instructions ("(C7512) / (C7513) Potential Performance Loss: wgmma.mma_async
# instructions are serialized due to ..."). ptxas prints that as info and still emits the kernel,
# which then waits for every wgmma before it issues the next: rung 8 ran 16-23 % slower that way in
# session 23 call 2 (a register copy into a wgmma operand, C7513), and nothing said so before the
# device did. A Hopper kernel that ptxas serialized is a bug here, so the build stops at it.
case "${1:-}" in
    -h | --help | "")
        echo "usage: wgmma_guard.sh COMPILER [ARGS...]   (CMake's CUDA compiler launcher, FA_WGMMA_GUARD)"
        echo "Runs COMPILER ARGS..., passes its output on (to stderr), and exits 1 when ptxas says it"
        echo "serialized wgmma.mma_async in a kernel; otherwise exits with the compiler's status."
        [ -n "${1:-}" ] && exit 0 || exit 2 ;;
esac
log=$(mktemp) || exit 1
"$@" > "$log" 2>&1
rc=$?
cat "$log" >&2
if [ "$rc" -eq 0 ] && grep -q "wgmma.mma_async instructions are serialized" "$log"; then
    echo "wgmma_guard.sh: ptxas serialized wgmma.mma_async in a kernel above (the C75xx line says" \
         "why); configure with -DFA_WGMMA_GUARD=OFF to build it anyway" >&2
    rc=1
fi
rm -f "$log"
exit "$rc"
