#!/usr/bin/env bash
# Regenerates every file of this folder (run it from this folder).
#
# Needs hyperfine (Debian 12: apt-get install -y hyperfine, version 1.15.0),
# coreutils, gzip and python3 (only to write the input file).
#
# Output:
#   initial.json, optimized.json   hyperfine --export-json results, 3 named
#                                  commands each, same names in both files
#   version.txt                    hyperfine --version
#
# Expected outcome of optimized against initial:
#   compress  much faster   gzip -9  ->  gzip -1
#   sort      about same    sort  ->  sort --parallel=2 (GNU sort already uses
#                                 2 threads on a 2-core machine)
#   checksum  slower        sha1sum  ->  sha512sum
set -euo pipefail

rm -f initial.json optimized.json version.txt
hyperfine --version > version.txt

# A deterministic ~4.7 MB input file, removed again at the end.
trap 'rm -f input.txt' EXIT
python3 - <<'EOF'
import random
r = random.Random(42)
words = ["alpha", "beta", "gamma", "delta"]
with open("input.txt", "w") as f:
    for _ in range(300000):
        f.write(f"{r.randrange(10**9)} {r.choice(words)}\n")
EOF

# 2 warm-up runs (not exported), then 10 timed runs per command.
# --command-name gives each command the name the results are paired by.
OPTS=(--warmup 2 --runs 10 --style basic)

hyperfine "${OPTS[@]}" --export-json initial.json \
    --command-name compress 'gzip -9 -c input.txt > /dev/null' \
    --command-name sort     'sort input.txt -o /dev/null' \
    --command-name checksum 'sha1sum input.txt'

hyperfine "${OPTS[@]}" --export-json optimized.json \
    --command-name compress 'gzip -1 -c input.txt > /dev/null' \
    --command-name sort     'sort --parallel=2 input.txt -o /dev/null' \
    --command-name checksum 'sha512sum input.txt'
