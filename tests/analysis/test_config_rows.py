"""The config's rows read with the quick path for lines without quotes
(inputs.samples.csv_rows): the cells of Python's CSV reader, line by line, whatever the line."""

from __future__ import annotations

import csv

from hypothesis import given
from hypothesis import strategies as st

from speeduptest.inputs.samples import csv_rows, physical_lines

_TEXT = st.text(st.sampled_from(['a', '1', ' ', ',', '"', '#', '\t', '\r', '\n', '\x00',
                                 'é', '\x0c', '\u2028', ';', '\\']), max_size=60)


def _by_the_reader(text: str) -> list:
    """csv_rows as it was: every line through csv.reader."""
    rows: list = []
    for number, line in enumerate(physical_lines(text), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            cells = next(csv.reader([line], strict=True))
        except csv.Error as error:
            rows.append((number, f"not valid CSV ({error})"))
            continue
        rows.append((number, [cell.strip() for cell in cells]))
    return rows


@given(_TEXT)
def test_the_cells_of_the_reader(text):
    assert csv_rows(text) == _by_the_reader(text)


def test_a_field_over_the_reader_s_limit_is_its_error():
    limit = csv.field_size_limit()
    try:
        csv.field_size_limit(10)
        for text in ("x" * 10 + ",b\n", "x" * 11 + ",b\n", "xxxxx,yyyyy,zz\n"):
            assert csv_rows(text) == _by_the_reader(text)
        assert isinstance(csv_rows("x" * 11)[0][1], str)
    finally:
        csv.field_size_limit(limit)
