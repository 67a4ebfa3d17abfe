#!/bin/sh
# Writes initial.xml and optimized.xml: 10 runs each of the Catch2 benchmarks of bench.cpp,
# built without and with -DOPTIMIZED (fibonacci: a loop instead of the recursion; sort 1000
# is the same code), each run one Catch2 XML report (--reporter xml), the reports of a version
# one after the other in its file. Catch2's XML reporter writes a summary of each benchmark
# (its mean, standard deviation, outliers), never the samples: speeduptest takes each run of
# the program as one measurement, its mean.
#
# The runs of the two versions are interleaved (initial 1, optimized 1, initial 2, …) so that
# a change of the machine's load over the minute falls on both alike. Initial runs write to
# stdout (the shell loop of the docs); optimized runs write with --out to
# optimized-out/run-NN.xml, concatenated into optimized.xml afterwards (the same reports: the
# reporter writes the same bytes to a file as to stdout).
#
# --benchmark-no-analysis: Catch2's bootstrap (100,000 resamples per benchmark) is skipped;
# the mean it writes is then the plain mean of the samples, as with the analysis.
# --benchmark-warmup-time 10: each benchmark runs for 10 ms (Catch2's default: 100 ms) before
# its samples, to keep the runs short; each run also spends about a second measuring the
# clock (Catch2 does it once per process, whatever the options).
#
# Needs g++ and Catch2 (Debian: apt-get install -y catch2, Catch2 2.13.10, the single header
# catch2/catch.hpp). main.cpp (Catch2's implementation, the slow part to build) is built
# once for both versions, beside them.
set -eu
cd "$(dirname "$0")"
runs=10
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
dpkg-query -W -f='Catch2 ${Version} (Debian package catch2)\n' catch2 > version.txt
g++ --version | head -1 >> version.txt
g++ -O2 -std=c++17 -c main.cpp -o "$build/main.o" &
g++ -O2 -std=c++17 -c bench.cpp -o "$build/initial.o"
g++ -O2 -std=c++17 -DOPTIMIZED -c bench.cpp -o "$build/optimized.o"
wait $!
for version in initial optimized; do
    g++ "$build/main.o" "$build/$version.o" -o "$build/catch2-$version"
done
rm -rf initial.xml optimized.xml optimized-out
mkdir optimized-out
for i in $(seq "$runs"); do
    "$build/catch2-initial" --reporter xml --benchmark-no-analysis --benchmark-warmup-time 10 \
        >> initial.xml
    "$build/catch2-optimized" --reporter xml --benchmark-no-analysis --benchmark-warmup-time 10 \
        --out "optimized-out/run-$(printf %02d "$i").xml"
done
cat optimized-out/run-*.xml > optimized.xml
