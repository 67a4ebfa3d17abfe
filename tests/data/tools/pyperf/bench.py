#!/usr/bin/env python3
"""Tiny pyperf suite in two versions, chosen with --mode initial|optimized.

Expected outcome of optimized against initial:
  sort         much faster  (insertion sort in Python -> built-in sorted())
  dict_lookup  much faster  (linear scan of a list of pairs -> dict)
  str_join     much faster  (character-by-character += -> str.join of chunks)
  regex        about same   (re.search with the pattern string -> precompiled
                             pattern: the re module caches compiled patterns)
  list_copy    slower       (lst[:] -> list comprehension)
  fib_memo     only in optimized (an unpaired benchmark)
"""
import functools
import re

import pyperf


def add_cmdline_args(cmd, args):
    # pyperf runs every benchmark in fresh worker processes: pass --mode on.
    cmd.extend(("--mode", args.mode))


runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
runner.argparser.add_argument("--mode", choices=("initial", "optimized"),
                              required=True)
args = runner.parse_args()
OPT = args.mode == "optimized"
runner.metadata["description"] = f"speeduptest fixture, {args.mode} version"

DATA = [(i * 7919) % 1000 for i in range(300)]
PAIRS = [(f"k{i}", i) for i in range(200)]
TABLE = dict(PAIRS)
KEYS = [f"k{i}" for i in range(0, 200, 7)]
TEXT = "lorem ipsum dolor sit amet " * 3000 + "id=12345;"
PATTERN = r"id=(\d+);"
COMPILED = re.compile(PATTERN)
LST = list(range(2000))


def sort_initial(data):
    out = list(data)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out


def sort_optimized(data):
    return sorted(data)


def dict_lookup_initial(keys):
    total = 0
    for k in keys:
        for name, value in PAIRS:
            if name == k:
                total += value
                break
    return total


def dict_lookup_optimized(keys):
    total = 0
    for k in keys:
        total += TABLE[k]
    return total


def regex_initial(text):
    return re.search(PATTERN, text).group(1)


def regex_optimized(text):
    return COMPILED.search(text).group(1)


def list_copy_initial(lst):
    return lst[:]


def list_copy_optimized(lst):
    return [x for x in lst]


def fib_memo(n):
    @functools.cache
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    return fib(n)


if OPT:
    runner.bench_func("sort", sort_optimized, DATA)
    runner.bench_func("dict_lookup", dict_lookup_optimized, KEYS)
    runner.timeit("str_join",
                  stmt="s = ''.join(chunks)",
                  setup="chunks = ['abcdefghij'] * 100")
    runner.bench_func("regex", regex_optimized, TEXT)
    runner.bench_func("list_copy", list_copy_optimized, LST)
    runner.bench_func("fib_memo", fib_memo, 60)
else:
    runner.bench_func("sort", sort_initial, DATA)
    runner.bench_func("dict_lookup", dict_lookup_initial, KEYS)
    runner.timeit("str_join",
                  stmt="s = ''\nfor c in text: s += c",
                  setup="text = 'abcdefghij' * 100")
    runner.bench_func("regex", regex_initial, TEXT)
    runner.bench_func("list_copy", list_copy_initial, LST)
