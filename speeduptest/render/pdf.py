"""The reports as PDF: the same HTML, laid out for A4 by weasyprint with the print rules.

A long report is laid out in parts, in parallel (see :mod:`speeduptest.reports`), and the
parts are joined here; page numbers ("page X of N") are stamped on the joined document so that
they run through all parts. Bookmarks of every part are kept.
"""

from __future__ import annotations

import io
import logging

import pypdf
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
)
from weasyprint import HTML

# weasyprint logs every CSS property it does not know (e.g. screen-only rules) as a warning.
logging.getLogger("weasyprint").setLevel(logging.ERROR)

MM = 72 / 25.4
#: Where the number goes: right edge of the text area, in the middle of the bottom margin
#: (margins of the @page rule in templates/report.css).
NUMBER_RIGHT, NUMBER_BASELINE, NUMBER_SIZE = 13 * MM, 7 * MM, 7.5
# Helvetica advance widths (per 1000 em) of the characters of "page 12 of 34".
_HELVETICA_WIDTHS = {**dict.fromkeys("pagedo0123456789", 556), " ": 278, "f": 278}


def html_to_pdf(html: str) -> bytes:
    return HTML(string=html, base_url=".").write_pdf()


def _stamp_page_numbers(writer: pypdf.PdfWriter) -> None:
    """Write 'page X of N' on every page with the standard Helvetica font (nothing embedded:
    a few bytes per page, where overlaying a rendered page would copy a font onto each)."""
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"),
        NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    }))
    total = len(writer.pages)
    save = DecodedStreamObject()
    save.set_data(b"q")
    save_state = writer._add_object(save)
    for number, page in enumerate(writer.pages, start=1):
        text = f"page {number} of {total}"
        width = sum(_HELVETICA_WIDTHS[c] for c in text) * NUMBER_SIZE / 1000
        x = float(page.mediabox.right) - NUMBER_RIGHT - width
        resources = page.setdefault(NameObject("/Resources"), DictionaryObject()).get_object()
        fonts = resources.setdefault(NameObject("/Font"), DictionaryObject()).get_object()
        fonts[NameObject("/SpeeduptestNumber")] = font
        stream = DecodedStreamObject()
        stream.set_data(
            f"Q q 0.4 g BT /SpeeduptestNumber {FloatObject(NUMBER_SIZE)} Tf "
            f"{x:.2f} {NUMBER_BASELINE:.2f} Td ({text}) Tj ET Q".encode("ascii"))
        contents = page.get("/Contents")
        existing = contents.get_object() if contents is not None else None
        streams = list(existing) if isinstance(existing, ArrayObject) else (
            [contents] if contents is not None else [])
        # The page's own content changes the coordinate system (weasyprint flips the y
        # axis) without restoring it: wrap it in q … Q so the number is drawn upright.
        page[NameObject("/Contents")] = ArrayObject(
            [save_state, *streams, writer._add_object(stream)])


def join_and_number(parts: list[bytes]) -> bytes:
    """One PDF from ``parts`` in order, with bookmarks kept and pages numbered throughout."""
    writer = pypdf.PdfWriter()
    for part in parts:
        writer.append(io.BytesIO(part), import_outline=True)
    _stamp_page_numbers(writer)
    writer.add_metadata({"/Producer": "speeduptest (weasyprint, pypdf)"})
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()
