#!/usr/bin/env bash
# Regenerates node.csv and node-aa.csv in this folder from real runs of
# harness.js. Usage: bash tests/data/jit/make_data.sh  (NODE=... to pick a node)
# MIT licence, written for speeduptest.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
node_bin="${NODE:-node}"
benchmarks=(fib richards sort json regexp nbody)
versions=(default no-inlining)
invocations=6
iterations=300

flags_for() {
  case "$1" in
    default) echo "" ;;
    no-inlining) echo "--no-turbo-inlining" ;;
  esac
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "node $("$node_bin" --version), $(uname -m), nproc $(nproc), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
start=$SECONDS
# Invocation outermost, then benchmark, then version: the two versions'
# invocations alternate (A1 B1 A2 B2 ...), and each benchmark's invocations are
# spread over the whole run rather than bunched together.
for ((inv = 1; inv <= invocations; inv++)); do
  for bench in "${benchmarks[@]}"; do
    for version in "${versions[@]}"; do
      # shellcheck disable=SC2046  # the flags are meant to split into words
      "$node_bin" $(flags_for "$version") "$here/harness.js" "$bench" "$iterations" \
        > "$tmp/$bench.$version.$inv" 2>> "$tmp/stderr.log"
      n=$(wc -l < "$tmp/$bench.$version.$inv")
      if [[ "$n" -ne "$iterations" ]]; then
        echo "error: $bench $version $inv gave $n lines" >&2
        exit 1
      fi
    done
  done
  echo "invocation $inv done after $((SECONDS - start)) s"
done

# node.csv: both versions, all invocations.
{
  echo "benchmark,version,invocation,iteration,value"
  for bench in "${benchmarks[@]}"; do
    for version in "${versions[@]}"; do
      for ((inv = 1; inv <= invocations; inv++)); do
        awk -v b="$bench" -v v="$version" -v i="$inv" \
          '{ printf "%s,%s,%d,%d,%s\n", b, v, i, NR, $1 }' "$tmp/$bench.$version.$inv"
      done
    done
  done
} > "$here/node.csv"

# node-aa.csv: the default version only, odd invocations as A and even ones
# as B, renumbered 1, 2, 3 within each label.
{
  echo "benchmark,version,invocation,iteration,value"
  for bench in "${benchmarks[@]}"; do
    for label in A B; do
      if [[ "$label" == A ]]; then first=1; else first=2; fi
      k=0
      for ((inv = first; inv <= invocations; inv += 2)); do
        k=$((k + 1))
        awk -v b="$bench" -v v="$label" -v i="$k" \
          '{ printf "%s,%s,%d,%d,%s\n", b, v, i, NR, $1 }' "$tmp/$bench.default.$inv"
      done
    done
  done
} > "$here/node-aa.csv"

echo "total run time: $((SECONDS - start)) s"
echo
echo "Invocation 1, mean ms of iterations 1-5 and 200-300:"
printf "| %-9s | %-11s | %9s | %11s | %6s |\n" benchmark version "it 1-5" "it 200-300" ratio
printf "|%s|%s|%s|%s|%s|\n" -----------  ------------- ----------- ------------- --------
for bench in "${benchmarks[@]}"; do
  for version in "${versions[@]}"; do
    awk -v b="$bench" -v v="$version" '
      NR <= 5 { a += $1; na++ }
      NR >= 200 && NR <= 300 { s += $1; ns++ }
      END { printf "| %-9s | %-11s | %9.3f | %11.3f | %6.2f |\n", b, v, a / na, s / ns, (a / na) / (s / ns) }
    ' "$tmp/$bench.$version.1"
  done
done
