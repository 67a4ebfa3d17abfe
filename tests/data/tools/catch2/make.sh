#!/bin/sh
# Writes initial.xml and optimized.xml: Catch2's XML reporter on the benchmarks of bench.cpp,
# built without and with -DOPTIMIZED. Needs g++ and Catch2 (Debian: apt-get install -y catch2,
# Catch2 2.13.10, the single header catch2/catch.hpp).
set -eu
cd "$(dirname "$0")"
dpkg-query -W -f='Catch2 ${Version} (Debian package catch2)\n' catch2 > version.txt
g++ --version | head -1 >> version.txt
g++ -O2 -std=c++17 bench.cpp -o /tmp/catch2-initial
g++ -O2 -std=c++17 -DOPTIMIZED bench.cpp -o /tmp/catch2-optimized
for version in initial optimized; do
    "/tmp/catch2-$version" --reporter xml --benchmark-samples 20 > "$version.xml"
done
