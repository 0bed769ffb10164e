#!/usr/bin/env bash
# The C kernels' checks, without Swift (make test-kernels, make test-arm64):
#   run.sh native   the baseline x86-64 set's emulated fused multiply-add against this CPU's FMA instruction
#                   (fused_exactness.c), then every function of every kernel set this CPU runs on fixed inputs
#                   (kernel_digest.c): the same digests from each set; and the baseline objects call no fmaf.
#   run.sh arm64    the kernels built for aarch64 (clang --target, linked by Debian's cross gcc), run under
#                   qemu-aarch64: the same digests as the x86-64 sets; and the code uses the hardware fused
#                   multiply-add (fmla/fmadd, no call to fmaf or fma).
# Objects and programs go to .build-kernels/.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-native}
CLANG=${CLANG:-clang}
KERNELS=Sources/CShadesKernels
OUT=.build-kernels
HARNESS=Tests/KernelHarness
# The flags SwiftPM's release build gives C targets that matter here (the files set contraction themselves).
CFLAGS=(-O2 -Wall -Werror -I"$KERNELS/include")
mkdir -p "$OUT"

fail() { echo "kernel checks: $*" >&2; exit 1; }

# Digests of every set this CPU runs, one file each; they must all be the same.
native_digests() {
    "$CLANG" "${CFLAGS[@]}" -o "$OUT/kernel_digest" "$HARNESS/kernel_digest.c" "$KERNELS"/kernels_*.c \
        "$KERNELS/select.c" "$KERNELS/modulation.c" -lm
    "$OUT/kernel_digest" baseline > "$OUT/digest-baseline.txt"
    for set in avx2 avx512; do
        "$OUT/kernel_digest" "$set" > "$OUT/digest-$set.txt"
        if grep -q "not available" "$OUT/digest-$set.txt"; then
            echo "kernel digests: $set not available on this CPU"
            continue
        fi
        diff -u "$OUT/digest-baseline.txt" "$OUT/digest-$set.txt" || fail "the $set set differs from the baseline set"
        echo "kernel digests: $set = baseline ($(wc -l < "$OUT/digest-baseline.txt") functions)"
    done
}

# `calls OBJECT` lists the functions OBJECT calls (relocations of call instructions).
calls() { llvm-objdump -dr "$1" | awk '/R_(X86_64_PLT32|AARCH64_CALL26|AARCH64_JUMP26)/ { sub(/-0x4$/, "", $3); print $3 }' | sort -u; }

case "$mode" in
native)
    [ "$(uname -m)" = x86_64 ] || fail "run.sh native is for x86-64"
    "$CLANG" "${CFLAGS[@]}" -I"$KERNELS" -o "$OUT/fused_exactness" "$HARNESS/fused_exactness.c" -lm
    "$OUT/fused_exactness" "${FUSED_ROUNDS:-64}"
    "$CLANG" "${CFLAGS[@]}" -c "$KERNELS/kernels_baseline.c" -o "$OUT/kernels_baseline.o"
    if calls "$OUT/kernels_baseline.o" | grep -qx fmaf; then fail "the baseline x86-64 kernels call libm's fmaf"; fi
    echo "baseline x86-64 kernels: no call to fmaf"
    native_digests
    ;;
arm64)
    native_digests
    SYSROOT=/usr/aarch64-linux-gnu
    A64=(--target=aarch64-linux-gnu --sysroot="$SYSROOT")
    objects=()
    for source in "$HARNESS/kernel_digest.c" "$KERNELS/kernels_baseline.c" "$KERNELS/select.c" "$KERNELS/modulation.c"; do
        object="$OUT/$(basename "$source" .c).aarch64.o"
        "$CLANG" "${A64[@]}" "${CFLAGS[@]}" -c "$source" -o "$object"
        objects+=("$object")
    done
    aarch64-linux-gnu-gcc -o "$OUT/kernel_digest.aarch64" "${objects[@]}" -lm
    qemu-aarch64 -L "$SYSROOT" "$OUT/kernel_digest.aarch64" baseline > "$OUT/digest-aarch64.txt"
    diff -u "$OUT/digest-baseline.txt" "$OUT/digest-aarch64.txt" || fail "aarch64 differs from x86-64"
    echo "kernel digests: aarch64 (qemu) = x86-64 ($(wc -l < "$OUT/digest-aarch64.txt") functions)"
    kernels="$OUT/kernels_baseline.aarch64.o"
    fused=$(llvm-objdump -d "$kernels" | grep -cwE 'fmla|fmadd|fmls|fmsub|fnmadd|fnmsub' || true)
    [ "$fused" -gt 0 ] || fail "the aarch64 kernels have no fused multiply-add instruction"
    if calls "$kernels" | grep -qxE 'fmaf?'; then fail "the aarch64 kernels call libm's fma or fmaf"; fi
    echo "aarch64 kernels: $fused fused multiply-add instructions, no call to fmaf or fma"
    ;;
*) fail "usage: run.sh native|arm64" ;;
esac
