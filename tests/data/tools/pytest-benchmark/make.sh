#!/bin/sh
# Writes initial.json and optimized.json (pytest --benchmark-json, which always holds every
# round's time) and optimized-saved-stats-only.json (what --benchmark-save writes without
# --benchmark-save-data: summary statistics only).
# Run in a folder of its own, away from the project's conftest.py.
# Needs: python3 -m venv /tmp/fixtures-venv-pytest-benchmark &&
#        /tmp/fixtures-venv-pytest-benchmark/bin/pip install pytest pytest-benchmark
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/tmp/fixtures-venv-pytest-benchmark/bin/python}
work=$(mktemp -d)
cp "$here/bench_fixture.py" "$work/"
cd "$work"
"$python" -c 'import sys, pytest, pytest_benchmark; print("Python", sys.version.split()[0]); print("pytest", pytest.__version__); print("pytest-benchmark", pytest_benchmark.__version__)' > "$here/version.txt"
options="-q -p no:cacheprovider --benchmark-min-rounds 15 --benchmark-max-time 0.05"
FIXTURE_VERSION=initial "$python" -m pytest $options bench_fixture.py \
    --benchmark-save-data --benchmark-json "$here/initial.json"
FIXTURE_VERSION=optimized "$python" -m pytest $options bench_fixture.py \
    --benchmark-save-data --benchmark-json "$here/optimized.json"
FIXTURE_VERSION=optimized "$python" -m pytest $options bench_fixture.py \
    --benchmark-storage "file://$work/storage" --benchmark-save stats-only
cp "$work"/storage/*/0001_stats-only.json "$here/optimized-saved-stats-only.json"
rm -r "$work"
