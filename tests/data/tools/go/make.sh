#!/bin/sh
# Writes initial.txt and optimized.txt: two runs of the Go benchmarks of src/ (two packages,
# textproc and hashing), before and after a real code change (build tag "optimized":
# textproc.SortWords becomes sort.Strings instead of an insertion sort; nothing else changes).
# Needs Go (Debian: apt-get install -y golang-go); the standard library only, no download.
set -eu
cd "$(dirname "$0")/src"
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
go version > ../version.txt
for version in initial optimized; do
    tags=""
    [ "$version" = optimized ] && tags="-tags=optimized"
    go test $tags -run '^$' -bench . -benchmem -count 8 -benchtime 0.2s ./... > "../$version.txt"
done
