#!/bin/sh
# Writes initial.json and optimized.json: asv result files (.asv/results/MACHINE/COMMIT-ENV.json)
# of two commits of a tiny git repository made here, the suite of suite/initial.py and then of
# suite/optimized.py (unique_words changes; nothing else). asv runs in the current Python
# (--python=same, environment_type "existing": nothing is built or installed), which saves
# results only with --set-commit-hash. --record-samples keeps every sample.
# Needs: python3 -m venv /tmp/fixtures-venv-asv && /tmp/fixtures-venv-asv/bin/pip install asv
set -eu
here=$(cd "$(dirname "$0")" && pwd)
asv=${ASV:-/tmp/fixtures-venv-asv/bin/asv}
work=$(mktemp -d)
cp "$here/suite/asv.conf.json" "$work/"
mkdir "$work/benchmarks"
touch "$work/benchmarks/__init__.py"
cd "$work"
git init -q .
"$asv" --version > "$here/version.txt"
"$asv" machine --yes --machine fixture > /dev/null
for version in initial optimized; do
    cp "$here/suite/$version.py" benchmarks/benchmarks.py
    git add -A
    git -c user.name=fixture -c user.email=fixture@example.org commit -qm "$version"
    commit=$(git rev-parse HEAD)
    "$asv" run --python=same --record-samples --machine fixture --set-commit-hash "$commit"
    cp .asv/results/fixture/"$(echo "$commit" | cut -c1-8)"-existing-*.json "$here/$version.json"
done
cp .asv/results/benchmarks.json "$here/benchmarks.json"
cd /
rm -rf "$work"
