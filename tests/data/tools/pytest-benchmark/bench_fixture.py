"""Benchmarks whose pytest-benchmark results speeduptest's reader is tested on. Only
``unique_words`` differs between the two versions (environment variable FIXTURE_VERSION:
a list scan in "initial", a set in "optimized")."""

import os

import pytest

OPTIMIZED = os.environ.get("FIXTURE_VERSION") == "optimized"
WORDS = [f"w{(i * 7919) % 997}" for i in range(2000)]


def unique_words(words):
    if OPTIMIZED:
        return list(dict.fromkeys(words))
    seen = []
    for word in words:
        if word not in seen:
            seen.append(word)
    return seen


def test_unique_words(benchmark):
    assert len(benchmark(unique_words, WORDS)) == 997


@pytest.mark.parametrize("size", [100, 10_000])
def test_sort(benchmark, size):
    data = [(i * 7919) % size for i in range(size)]
    benchmark(sorted, data)


def test_join(benchmark):
    benchmark(" ".join, WORDS)
