#!/usr/bin/env bash
# Regenerates every file of this folder (run it from this folder).
#
# Needs g++ and Google Benchmark (Debian 12: apt-get install -y libbenchmark-dev,
# version 1.7.1; note that Debian's build reports "library_build_type": "debug").
#
# Output:
#   initial.json                    bench.cc built without -DOPTIMIZED, 5 repetitions:
#                                   per-repetition entries + mean/median/stddev/cv aggregates
#   optimized.json                  bench.cc built with -DOPTIMIZED, same options
#   optimized-aggregates-only.json  optimized again with --benchmark_report_aggregates_only=true:
#                                   only the aggregates, no per-repetition entries
#   version.txt                     libbenchmark-dev and g++ versions
set -euo pipefail

rm -f initial.json optimized.json optimized-aggregates-only.json version.txt
{
    dpkg-query -W -f='libbenchmark-dev ${Version}\n' libbenchmark-dev
    g++ --version | head -n 1
} > version.txt

# The two binaries are built here (so the JSON "context.executable" reads
# "./initial" or "./optimized") and removed at the end.
trap 'rm -f initial optimized' EXIT
g++ -O2 -std=c++17             bench.cc -o initial   -lbenchmark -lpthread
g++ -O2 -std=c++17 -DOPTIMIZED bench.cc -o optimized -lbenchmark -lpthread

# Version 1.7.1 takes --benchmark_min_time as a plain number of seconds
# (the "0.05s" / "100x" suffix syntax came with 1.8).
# The JSON is written to --benchmark_out; the copy printed on stdout is dropped.
OPTS=(--benchmark_repetitions=5 --benchmark_min_time=0.05
      --benchmark_format=json --benchmark_out_format=json)

./initial   "${OPTS[@]}" --benchmark_out=initial.json   > /dev/null
./optimized "${OPTS[@]}" --benchmark_out=optimized.json > /dev/null
./optimized "${OPTS[@]}" --benchmark_report_aggregates_only=true \
    --benchmark_out=optimized-aggregates-only.json > /dev/null
