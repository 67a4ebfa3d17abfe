#!/usr/bin/env python3
"""Tiny benchmark harness for ReBench, in two versions.

Usage: python3 harness.py initial|optimized BENCHMARK ITERATIONS

Runs BENCHMARK ITERATIONS times in this one process (one ReBench
"invocation") and prints, per iteration, one line in the format of ReBench's
RebenchLog gauge adapter (rebench/interop/rebench_log_adapter.py):

    Sort: iterations=1 runtime: 12345us

Expected outcome of optimized against initial:
  Sort    much faster  (insertion sort in Python -> built-in sorted())
  Lookup  much faster  (linear scan of a list of pairs -> dict)
  Loop    about same   (identical code in both versions)
  Cache   only run by the optimized executor (an unpaired benchmark)
"""
import functools
import sys
import time

VERSION, BENCH, ITERATIONS = sys.argv[1], sys.argv[2], int(sys.argv[3])
OPT = VERSION == "optimized"

DATA = [(i * 7919) % 10007 for i in range(1500)]
PAIRS = [(f"k{i}", i) for i in range(1000)]
TABLE = dict(PAIRS)
KEYS = [f"k{i}" for i in range(0, 1000, 3)]


def sort():
    if OPT:
        return sorted(DATA)
    out = list(DATA)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out


def lookup():
    total = 0
    if OPT:
        for k in KEYS:
            total += TABLE[k]
        return total
    for k in KEYS:
        for name, value in PAIRS:
            if name == k:
                total += value
                break
    return total


def loop():
    total = 0
    for i in range(200000):
        total += i % 7
    return total


def cache():
    @functools.cache
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    return fib(400)


BENCHMARKS = {"Sort": sort, "Lookup": lookup, "Loop": loop, "Cache": cache}

fn = BENCHMARKS[BENCH]
for _ in range(ITERATIONS):
    start = time.perf_counter()
    fn()
    elapsed_us = (time.perf_counter() - start) * 1e6
    print(f"{BENCH}: iterations=1 runtime: {elapsed_us:.0f}us")
