#!/usr/bin/env bash
# Measure the compiler-flag data set: build every kernel in kernels/ with each flag set of
# VARIANTS (default -O0, -O2, -O3 -march=native), run each binary RUNS times (default 31)
# with the variants interleaved round-robin, and write one sample file per kernel and
# variant:
#
#     O0/<kernel>.txt   O2/<kernel>.txt   O3-native/<kernel>.txt
#
# Usage:  bash samples/compiler-flags/collect.sh          (from any directory)
#         RUNS=11 bash samples/compiler-flags/collect.sh   (fewer runs, e.g. a quick try)
#         CC=clang bash samples/compiler-flags/collect.sh  (another compiler)
#         VARIANTS="O0 O2 O3-native O2-flto" OUT=session2 bash samples/compiler-flags/collect.sh
#                                      (these variants, written to session2/<variant>/)
#
# Variants known: O0, O2, O3-native and O2-flto (-O2 -flto). The default is the three of
# the first session's data set (O0 O2 O3-native) written to ./<variant>/; OUT names another
# folder (relative to this one) so that a new session never replaces an earlier one.
#
# Run order: for run in 1..RUNS, for kernel, for variant: run the binary once. Slow drift
# of the machine (frequency, thermal state, background load) therefore hits all the
# variants alike instead of biasing whichever variant happened to run last.
# Each program prints the seconds of its own compute phase on stdout and a checksum on
# stderr; the checksum must be the same for all runs and all variants of a kernel.
# The sample files are replaced only when the whole collection succeeded.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

RUNS="${RUNS:-31}"
if ! [[ "$RUNS" =~ ^[1-9][0-9]*$ ]]; then
    echo "collect.sh: RUNS must be a positive integer, got '$RUNS'" >&2
    exit 2
fi
CC="${CC:-gcc}"
COMMON_FLAGS=(-std=c11 -Wall -Wextra)
declare -A FLAGS=([O0]="-O0" [O2]="-O2" [O3-native]="-O3 -march=native"
                  [O2-flto]="-O2 -flto")
read -r -a VARIANTS <<< "${VARIANTS:-O0 O2 O3-native}"
OUT="${OUT:-.}"
if [[ "$OUT" == /* || "$OUT" == *..* ]]; then
    echo "collect.sh: OUT must be a folder inside samples/compiler-flags, got '$OUT'" >&2
    exit 2
fi
if [[ ${#VARIANTS[@]} -eq 0 ]]; then
    echo "collect.sh: VARIANTS is empty" >&2
    exit 2
fi
for variant in "${VARIANTS[@]}"; do
    if [[ -z "${FLAGS[$variant]+set}" ]]; then
        echo "collect.sh: unknown variant '$variant' (known: ${!FLAGS[*]})" >&2
        exit 2
    fi
done

KERNELS=()
for source in kernels/*.c; do
    KERNELS+=("$(basename "$source" .c)")
done
if [[ ${#KERNELS[@]} -eq 0 ]]; then
    echo "collect.sh: no kernels/*.c found" >&2
    exit 1
fi

# --- describe the machine -------------------------------------------------------------
compiler_version="$("$CC" --version | head -n 1)"
machine="$(uname -m)"
os="$(uname -sr)"
cpu="$(grep -m 1 -E '^(model name|Processor|cpu model|cpu)[[:space:]]*:' /proc/cpuinfo 2>/dev/null \
       | cut -d: -f2- | sed 's/^[[:space:]]*//' || true)"
cpu="${cpu:-unknown}"
cores="$(nproc 2>/dev/null || echo unknown)"
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
load_before="$(uptime)"
start_seconds=$SECONDS

# --- build ----------------------------------------------------------------------------
echo "Building ${#KERNELS[@]} kernels x ${#VARIANTS[@]} variants with $compiler_version"
for variant in "${VARIANTS[@]}"; do
    mkdir -p "build/$variant"
    for kernel in "${KERNELS[@]}"; do
        # shellcheck disable=SC2086  # FLAGS holds several words on purpose
        "$CC" "${COMMON_FLAGS[@]}" ${FLAGS[$variant]} -o "build/$variant/$kernel" \
            "kernels/$kernel.c" -lm
    done
done

# --- one warm-up run per binary (not recorded); the checksums must agree ---------------
declare -A CHECKSUM
for kernel in "${KERNELS[@]}"; do
    for variant in "${VARIANTS[@]}"; do
        "build/$variant/$kernel" > /dev/null 2> "build/$variant/$kernel.checksum"
        CHECKSUM[$kernel/$variant]="$(cat "build/$variant/$kernel.checksum")"
        if [[ "${CHECKSUM[$kernel/$variant]}" != "${CHECKSUM[$kernel/${VARIANTS[0]}]}" ]]; then
            echo "collect.sh: warning: $kernel: checksum of $variant differs from ${VARIANTS[0]}:" >&2
            echo "    ${VARIANTS[0]}: ${CHECKSUM[$kernel/${VARIANTS[0]}]}" >&2
            echo "    $variant: ${CHECKSUM[$kernel/$variant]}" >&2
        fi
    done
done

# --- sample file headers (written to a staging folder, moved into place at the end) ----
staging="build/samples.tmp"
rm -rf "$staging"
for variant in "${VARIANTS[@]}"; do
    mkdir -p "$staging/$variant"
    for kernel in "${KERNELS[@]}"; do
        {
            echo "# kernel: $kernel (kernels/$kernel.c)"
            echo "# variant: $variant"
            echo "# flags: $CC ${COMMON_FLAGS[*]} ${FLAGS[$variant]} -lm"
            echo "# compiler: $compiler_version"
            echo "# machine: $machine, $os, $cores cores"
            echo "# cpu: $cpu"
            echo "# date: $started"
            echo "# runs: $RUNS, interleaved round-robin (for run: for kernel: for variant)"
            echo "# variants measured together: ${VARIANTS[*]}"
            echo "# load before: $load_before"
            echo "# checksum: ${CHECKSUM[$kernel/$variant]}"
            echo "# unit: seconds (elapsed CLOCK_MONOTONIC time of the compute phase)"
        } > "$staging/$variant/$kernel.txt"
    done
done

# --- measure, interleaved ---------------------------------------------------------------
number='^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$'
for ((run = 1; run <= RUNS; run++)); do
    printf 'run %d/%d (%ds elapsed)\n' "$run" "$RUNS" $((SECONDS - start_seconds))
    for kernel in "${KERNELS[@]}"; do
        for variant in "${VARIANTS[@]}"; do
            value="$("build/$variant/$kernel" 2> "build/$variant/$kernel.stderr")"
            if ! [[ "$value" =~ $number ]] || ! awk -v v="$value" 'BEGIN { exit !(v > 0) }'; then
                echo "collect.sh: $variant/$kernel printed '$value', not a positive number" >&2
                exit 1
            fi
            if [[ "$(cat "build/$variant/$kernel.stderr")" != "${CHECKSUM[$kernel/$variant]}" ]]; then
                echo "collect.sh: warning: $variant/$kernel: checksum changed in run $run" >&2
            fi
            echo "$value" >> "$staging/$variant/$kernel.txt"
        done
    done
done

# --- move into place --------------------------------------------------------------------
for variant in "${VARIANTS[@]}"; do
    mkdir -p "$OUT/$variant"
    for kernel in "${KERNELS[@]}"; do
        mv "$staging/$variant/$kernel.txt" "$OUT/$variant/$kernel.txt"
    done
done
rm -rf "$staging"
echo "Load before: $load_before"
echo "Load after:  $(uptime)"
echo "Done: $RUNS runs of ${#KERNELS[@]} kernels x ${#VARIANTS[@]} variants in $((SECONDS - start_seconds))s"
