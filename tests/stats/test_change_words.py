"""A speedup in words: percentages for small changes, factors written as people write them
for large ones (never "1.6e+03×")."""

from __future__ import annotations

import pytest

from speeduptest.stats.effect_size import change_words


@pytest.mark.parametrize(("speedup", "words"), [
    (1.055, "5.2% faster"), (1 / 1.031, "3.1% slower"), (1.72, "1.72× faster"),
    (263.4, "263× faster"), (999.4, "999× faster"), (999.6, "1,000× faster"),
    (1604.2, "1,604× faster"), (1 / 1604.2, "1,604× slower"), (123_456.0, "123,456× faster"),
    (2.1e6, "2.1e6× faster"), (5e12, "5e12× faster"), (0.0, "over 1e308× slower"),
])
def test_change_words(speedup: float, words: str) -> None:
    assert change_words(speedup) == words
