#!/usr/bin/env bash
# Regenerates every file of this folder (run it from this folder).
#
# Needs pyperf (latest from PyPI) in a virtual environment, e.g.:
#   python3 -m venv /tmp/fixtures-venv-pyperf
#   /tmp/fixtures-venv-pyperf/bin/pip install pyperf
#   PYTHON=/tmp/fixtures-venv-pyperf/bin/python ./make.sh
#
# Output:
#   initial.json, optimized.json   pyperf results of bench.py --mode initial / optimized
#   optimized.json.gz              the same results as optimized.json, gzip-written by pyperf
#   compare_to.txt                 python -m pyperf compare_to initial.json optimized.json
#   compare_to_table.txt           the same with --table
#   versions.txt                   pyperf and Python versions
set -euo pipefail

PYTHON=${PYTHON:-/tmp/fixtures-venv-pyperf/bin/python}

# pyperf refuses to overwrite an existing output file.
rm -f initial.json optimized.json optimized.json.gz \
      compare_to.txt compare_to_table.txt versions.txt

{
    echo "pyperf $("$PYTHON" -c 'import pyperf; print(pyperf.__version__)')"
    "$PYTHON" --version
} > versions.txt

# 4 worker processes, each with 1 warm-up value and 3 measured values.
# The number of loops per value is NOT fixed: pyperf calibrates it in an
# extra first worker process (that run holds only warm-ups, and its run
# metadata has "calibrate_loops"), as it does by default.
# --quiet only hides pyperf's "result may be unstable" warnings.
OPTS=(--processes 4 --values 3 --warmups 1 --quiet)
"$PYTHON" bench.py --mode initial   "${OPTS[@]}" -o initial.json
"$PYTHON" bench.py --mode optimized "${OPTS[@]}" -o optimized.json

# pyperf writes gzip-compressed JSON when the output name ends in .json.gz.
"$PYTHON" -m pyperf convert optimized.json -o optimized.json.gz

# pyperf's own comparison, for reference (fib_memo is only in optimized.json).
"$PYTHON" -m pyperf compare_to initial.json optimized.json > compare_to.txt
"$PYTHON" -m pyperf compare_to --table initial.json optimized.json > compare_to_table.txt

cat compare_to.txt
