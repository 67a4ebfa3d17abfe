#!/bin/sh
# Writes criterion/: the target/criterion folder of two runs of `cargo bench` on src/, first
# the initial build, then the optimized one (--features optimized: sort becomes the standard
# library's sort_unstable instead of an insertion sort; nothing else changes). The first run
# saves its samples as the baseline "base" (Criterion's default); the second compares with it
# (--baseline base), which leaves base/ as it was: each benchmark's base/ then holds the
# initial run and new/ the optimized one. (Without --baseline, Criterion would copy new/ to
# base/ after the second run too, and both would hold the optimized run.)
# Built offline from the crates Debian packages (src/.cargo/config.toml): needs
# apt-get install -y librust-criterion-dev, and cargo (Debian's, or rustup's).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/src"
{ cargo --version; rustc --version; echo "criterion $(cargo pkgid criterion | sed 's/.*[#@]//')"; } > "$here/version.txt"
options="--sample-size 30 --measurement-time 2 --warm-up-time 1 --noplot"
rm -rf target/criterion
cargo bench --bench fixture -- $options
cargo bench --bench fixture --features optimized -- $options --baseline base
rm -rf "$here/criterion"
cp -r target/criterion "$here/criterion"
find "$here/criterion" -name report -type d -prune -exec rm -rf {} +
