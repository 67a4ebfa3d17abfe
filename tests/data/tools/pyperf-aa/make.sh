#!/usr/bin/env bash
# Regenerates every file of this folder (run it from this folder).
#
# Needs pyperf (latest from PyPI) in a virtual environment, e.g.:
#   python3 -m venv /work/main/.venv
#   /work/main/.venv/bin/pip install pyperf
#   PYTHON=/work/main/.venv/bin/python ./make.sh
#
# Output:
#   same-build.json.gz   bench.py --mode same,   40 worker processes per benchmark
#                        (the A/A file: split it by worker-process parity into
#                        20 vs 20 processes; a correct tool finds no difference)
#   same-20.json.gz      bench.py --mode same,   20 worker processes per benchmark
#   faster.json.gz       bench.py --mode faster, 20 worker processes per benchmark
#                        (only logging_silent changes, about 1.9x faster)
#   compare_to.txt       python -m pyperf compare_to same-20.json.gz faster.json.gz
#   versions.txt         pyperf and Python versions
#
# Takes about 10-15 minutes on 2 cores (20 benchmarks x 83 worker processes).
set -euo pipefail

PYTHON=${PYTHON:-/work/main/.venv/bin/python}

# pyperf refuses to overwrite an existing output file (and --append would add
# to an old one).
rm -f same-build.json.gz same-20.json.gz faster.json.gz \
      compare_to.txt versions.txt

{
    echo "pyperf $("$PYTHON" -c 'import pyperf; print(pyperf.__version__)')"
    "$PYTHON" --version
} > versions.txt

# Each worker process runs 1 warm-up value and 3 measured values. The number
# of loops per value is NOT fixed: pyperf calibrates it in an extra first
# worker process (that run holds only warm-ups, and its run metadata has
# "calibrate_loops"), as it does by default.
# --min-time 0.05 (default 0.1 s per value) shortens each worker process so
# that the 1,600+ worker processes fit in about 10-15 minutes; the process
# counts are what matters here and are not reduced.
# --quiet only hides pyperf's "result may be unstable" warnings.
# pyperf writes gzip-compressed JSON when the output name ends in .json.gz.
OPTS=(--values 3 --warmups 1 --min-time 0.05 --quiet)

# The A/A file: one invocation, all 40 processes of a benchmark in a row.
"$PYTHON" bench.py --mode same --processes 40 "${OPTS[@]}" -o same-build.json.gz

# The real comparison. The machine is shared, and its load can change a lot
# within minutes: running all of --mode same and then all of --mode faster
# made unchanged benchmarks look up to 2x slower. So the two modes are
# interleaved benchmark by benchmark (a few seconds apart, the mode that runs
# first alternating), each appended to its file with pyperf's --append.
# Same benchmark order as in same-build.json.gz.
NAMES=$("$PYTHON" -c 'import sys, pyperf
print(*pyperf.BenchmarkSuite.load(sys.argv[1]).get_benchmark_names())' same-build.json.gz)
i=0
for name in $NAMES; do
    if (( i % 2 == 0 )); then modes=(same faster); else modes=(faster same); fi
    for mode in "${modes[@]}"; do
        if [[ $mode == same ]]; then out=same-20.json.gz; else out=faster.json.gz; fi
        "$PYTHON" bench.py --mode "$mode" --only "$name" --processes 20 "${OPTS[@]}" \
            --append "$out"
    done
    i=$((i + 1))
done

# pyperf's own comparison, for reference: only logging_silent should differ.
"$PYTHON" -m pyperf compare_to same-20.json.gz faster.json.gz > compare_to.txt

cat compare_to.txt
