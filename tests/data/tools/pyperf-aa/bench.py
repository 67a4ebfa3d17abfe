#!/usr/bin/env python3
"""A/A fixture: 20 small pure-Python micro-benchmarks, chosen with --mode same|faster.

--mode same    every benchmark runs its reference code.
--mode faster  identical code, except ONE benchmark: logging_silent passes its
               arguments to a disabled logger.debug() lazily instead of building
               the message with an f-string first (about 1.9x faster: the level
               check is all that remains).

same-build.json.gz (40 worker processes of --mode same) is meant to be split by
worker-process parity into two halves of 20 processes: an A/A test, where a
correct tool must find no difference. same-20.json.gz against faster.json.gz
(20 processes each) must show logging_silent about 1.9x faster and nothing else.

--only NAME runs a single benchmark; make.sh uses it to interleave the two
modes benchmark by benchmark (with pyperf's --append).

Every benchmark takes roughly 1-5 ms per call. Input data is built at import
time with a fixed seed, so every worker process measures exactly the same work.
"""
import bisect
import collections
import heapq
import itertools
import json
import logging
import math
import random
import re
import struct

import pyperf


def add_cmdline_args(cmd, args):
    # pyperf runs every benchmark in fresh worker processes: pass --mode on
    # (and --only: a worker finds its benchmark by its rank among the
    # benchmarks registered, so it must register the same ones).
    cmd.extend(("--mode", args.mode))
    if args.only:
        cmd.extend(("--only", args.only))


runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
runner.argparser.add_argument("--mode", choices=("same", "faster"),
                              required=True)
runner.argparser.add_argument("--only", metavar="NAME",
                              help="run only this benchmark (make.sh uses it to "
                                   "interleave --mode same and --mode faster)")
args = runner.parse_args()
FASTER = args.mode == "faster"
runner.metadata["description"] = f"speeduptest A/A fixture, {args.mode} version"

rng = random.Random(20240601)
INTS = [rng.randrange(1_000_000) for _ in range(20_000)]
FLOATS = [rng.random() * 1000.0 for _ in range(50_000)]
WORDS = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                 for _ in range(rng.randrange(3, 10)))
         for _ in range(5_000)]
TEXT = " ".join(f"{w}={rng.randrange(10_000)};" if i % 3 == 0 else w
                for i, w in enumerate(WORDS))
RECORDS = [{"id": i, "name": WORDS[i], "score": FLOATS[i],
            "tags": WORDS[i:i + 3], "active": i % 2 == 0}
           for i in range(800)]
RECORDS_JSON = json.dumps(RECORDS)
PAIR_RE = re.compile(r"(\w+)=(\d+);")
LOG = logging.getLogger("speeduptest.aa")
LOG.setLevel(logging.WARNING)        # DEBUG calls are disabled


# --- sorting, searching, containers --------------------------------------

def sort_ints(data):
    return sorted(data)


def sort_words_key(words):
    return sorted(words, key=lambda w: (len(w), w[::-1]))


def dict_ops(words):
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    for w in words[::2]:
        if w in counts:
            del counts[w]  # noqa: RUF051 (the code as it was timed)
    return len(counts)


def set_ops(data):
    a = set(data[:12_000])
    b = set(data[8_000:])
    return len(a & b) + len(a | b) + len(a - b) + len(a ^ b)


def deque_rotate(n):
    d = collections.deque(range(1000))
    for i in range(n):
        d.append(d.popleft() + i)
        if i % 100 == 0:
            d.rotate(7)
    return d[0]


def heap_ops(data):
    heap = []
    for x in data[:8_000]:
        heapq.heappush(heap, x)
    return sum(heapq.heappop(heap) for _ in range(4_000))


def bisect_insort(data):
    out = []
    for x in data[:4_000]:
        bisect.insort(out, x)
    return out[len(out) // 2]


# --- strings, regex, json, bytes -----------------------------------------

def str_format(n):
    parts = []
    for i in range(n):
        parts.append(f"{i:05d}|{i * 0.5:8.2f}|{'x' * (i % 7)}")
        parts.append("%d-%s" % (i, i % 13))  # noqa: UP031 (old-style formatting, timed)
    return len("".join(parts))


def str_methods(words):
    out = 0
    for w in words:
        s = w.upper().replace("A", "-").strip("-")
        out += len(s.split("E")) + s.count("O") + s.startswith("B")
    return out


def regex_findall(text):
    return sum(int(v) for _, v in PAIR_RE.findall(text))


def json_roundtrip(records):
    return len(json.loads(json.dumps(records)))


def struct_bytes(n):
    buf = bytearray()
    for i in range(n):
        buf += struct.pack("<IHd", i, i & 0xFFFF, i * 0.25)
    total = 0
    for off in range(0, len(buf), 14):
        a, b, c = struct.unpack_from("<IHd", buf, off)  # noqa: RUF059
        total += a + b
    return total


# --- numbers, functions, objects -----------------------------------------

def int_loop(n):
    total = 0
    for i in range(n):
        total += (i * i) % 7 - (i >> 3) & 0xFF
    return total


def float_sum(floats):
    return sum(floats) + math.fsum(floats[::2]) + sum(x * x for x in floats[::4])


def list_comprehension(data):
    evens = [x // 2 for x in data if x % 2 == 0]
    return len([y for y in evens if y % 3]) + len({x % 1000 for x in data})


def fib_recursive(n):
    return n if n < 2 else fib_recursive(n - 1) + fib_recursive(n - 2)


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Particle:
    def __init__(self, x, y):
        self.pos = Point(x, y)
        self.speed = 1.5

    def step(self):
        self.pos.x += self.speed
        self.pos.y -= self.speed * 0.5


def attribute_access(n):
    particles = [Particle(i, -i) for i in range(100)]
    for _ in range(n):
        for p in particles:
            p.step()
    return particles[0].pos.x + particles[-1].pos.y


def generator_pipeline(data):
    squares = (x * x for x in data)
    small = (s % 1000 for s in squares)
    odd = (s for s in small if s & 1)
    return sum(itertools.islice(odd, 8_000))


def exceptions(n):
    caught = 0
    for i in range(n):
        try:
            if i % 3:
                raise KeyError(i)
            {}[i]
        except KeyError:
            caught += 1
    return caught


# --- the one benchmark that changes --------------------------------------

def logging_silent_eager(n):
    # The message is formatted even though DEBUG is disabled.
    for i in range(n):
        LOG.debug(f"{LOG.name}: item {i} of {n}")


def logging_silent_lazy(n):
    # Arguments passed lazily: only the level check runs.
    for i in range(n):
        LOG.debug("%s: item %s of %s", LOG.name, i, n)


NAMES = []


def bench(name, func, arg):
    NAMES.append(name)
    if args.only in (None, name):
        runner.bench_func(name, func, arg)


bench("sort_ints", sort_ints, INTS)
bench("sort_words_key", sort_words_key, WORDS)
bench("dict_ops", dict_ops, WORDS * 4)
bench("set_ops", set_ops, INTS)
bench("deque_rotate", deque_rotate, 20_000)
bench("heap_ops", heap_ops, INTS)
bench("bisect_insort", bisect_insort, INTS)
bench("str_format", str_format, 3_000)
bench("str_methods", str_methods, WORDS)
bench("regex_findall", regex_findall, TEXT)
bench("json_roundtrip", json_roundtrip, RECORDS)
bench("struct_bytes", struct_bytes, 5_000)
bench("int_loop", int_loop, 30_000)
bench("float_sum", float_sum, FLOATS)
bench("list_comprehension", list_comprehension, INTS)
bench("fib_recursive", fib_recursive, 22)
bench("attribute_access", attribute_access, 200)
bench("generator_pipeline", generator_pipeline, INTS)
bench("exceptions", exceptions, 6_000)
bench("logging_silent",
      logging_silent_lazy if FASTER else logging_silent_eager,
      10_000)

if args.only is not None and args.only not in NAMES:
    runner.argparser.error(f"--only: unknown benchmark {args.only!r}")
