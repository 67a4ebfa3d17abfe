"""The reports as PDF: the same HTML, laid out for A4 by weasyprint with the print rules.

A long report is laid out in parts, in parallel (see :mod:`speeduptest.render.formats`), and the
parts are joined here; page numbers ("page X of N") are stamped on the joined document so that
they run through all parts. Bookmarks of every part are kept, or replaced by an outline made
from where each part's anchors fell.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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
# Helvetica advance widths (per 1000 em) of the characters of "index page 12 of 34".
_HELVETICA_WIDTHS = {**dict.fromkeys("pagedo0123456789n", 556), " ": 278, "f": 278, "i": 222,
                     "x": 500}


def html_to_pdf(html: str) -> bytes:
    return HTML(string=html, base_url=".").write_pdf()


@dataclass(frozen=True)
class LaidOut:
    """A part of a report as PDF, with the page (0-based, within the part) on which each
    element with an ``id`` starts."""

    pdf: bytes
    anchors: dict[str, int]
    pages: int
    dense: tuple[int, ...] = ()  # the sections laid out again densely (lay_out_sections)


def lay_out(html: str) -> LaidOut:
    return _laid_out(HTML(string=html, base_url=".").render())


def _anchor_pages(document) -> dict[str, int]:
    """The page (0-based) on which each element with an ``id`` starts."""
    anchors: dict[str, int] = {}
    for number, page in enumerate(document.pages):
        for name in page.anchors:
            anchors.setdefault(name, number)
    return anchors


def _laid_out(document, dense: Sequence[int] = ()) -> LaidOut:
    return LaidOut(document.write_pdf(), _anchor_pages(document), len(document.pages),
                   tuple(dense))


def lay_out_sections(html: str, sections: Mapping[str, int],
                     denser: Callable[[int], str]) -> LaidOut:
    """Lay out ``html``, whose sections (id → number, in order) each start a page and should
    take one: a section that took more is laid out again on its own from ``denser(number)``
    (the same section, laid out more densely), and its pages replace its own when they are
    fewer (``LaidOut.dense``: their numbers). Pages of several layouts make one document
    (weasyprint's Document.copy takes pages of any document)."""
    document = HTML(string=html, base_url=".").render()
    total = len(document.pages)
    starts = _anchor_pages(document)
    found = [(name, starts[name]) for name in sections if name in starts]
    spans = [(name, start, stop) for (name, start), stop
             in zip(found, [start for _, start in found[1:]] + [total], strict=True)]
    if all(stop - start <= 1 for _, start, stop in spans):
        return _laid_out(document)
    pages, dense = list(document.pages[:spans[0][1]]), []
    for name, start, stop in spans:
        own = document.pages[start:stop]
        if len(own) > 1:
            again = HTML(string=denser(sections[name]), base_url=".").render().pages
            if len(again) < len(own):
                own = again
                dense.append(sections[name])
        pages += own
    return _laid_out(document.copy(pages), dense)


@dataclass(frozen=True)
class Bookmark:
    """An entry of a PDF's outline: ``title`` opens ``page`` (0-based, in the joined
    document); ``children`` are shown folded under it."""

    title: str
    page: int
    children: tuple[Bookmark, ...] = ()


def _stamp_page_numbers(writer: pypdf.PdfWriter, front_matter: int = 0) -> None:
    """Write 'page X of N' on every page with the standard Helvetica font (nothing embedded:
    a few bytes per page, where overlaying a rendered page would copy a font onto each).
    The first ``front_matter`` pages (an index) are numbered on their own ("index page 1 of
    2"), so that the pages after them are numbered from 1 whatever the index's length."""
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"),
        NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    }))
    total = len(writer.pages)
    save = DecodedStreamObject()
    save.set_data(b"q")
    save_state = writer._add_object(save)
    for position, page in enumerate(writer.pages):
        if position < front_matter:
            text = f"index page {position + 1} of {front_matter}"
        else:
            text = f"page {position + 1 - front_matter} of {total - front_matter}"
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
    if front_matter:  # what a viewer shows as the page number, and "go to page" takes
        writer.set_page_label(0, front_matter - 1, "/D", prefix="index ", start=1)
        if total > front_matter:
            writer.set_page_label(front_matter, total - 1, "/D", start=1)


def _add_outline(writer: pypdf.PdfWriter, bookmarks: Sequence[Bookmark],
                 parent: object = None) -> None:
    for bookmark in bookmarks:
        item = writer.add_outline_item(title=bookmark.title, page_number=bookmark.page,
                                       parent=parent, is_open=False)
        _add_outline(writer, bookmark.children, item)


def join_and_number(parts: list[bytes], outline: Sequence[Bookmark] | None = None,
                    front_matter: int = 0) -> bytes:
    """One PDF from ``parts`` in order, with pages numbered throughout (the first
    ``front_matter`` pages on their own), and the parts' bookmarks, or ``outline`` instead
    when given."""
    writer = pypdf.PdfWriter()
    for part in parts:
        writer.append(io.BytesIO(part), import_outline=outline is None)
    _stamp_page_numbers(writer, front_matter)
    if outline is not None:
        _add_outline(writer, outline)
    writer.add_metadata({"/Producer": "speeduptest (weasyprint, pypdf)"})
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()
