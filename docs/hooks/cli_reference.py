"""mkdocs hook: the command-line reference, generated from the argument parsers.

On the page ``reference/cli.md`` the placeholder ``<!-- cli-reference -->`` is replaced by the
``--help`` of ``speeduptest``, ``speeduptest compare`` and ``speeduptest plan``, as
``speeduptest.cli`` builds them, so the reference cannot drift from the code. The help is
formatted at a fixed width of 100 columns whatever the terminal, so the page is the same on
every machine. The parsers are imported from this checkout (its folder goes first on
``sys.path``), which needs speeduptest's dependencies installed (``pip install .``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

PAGE = "reference/cli.md"
PLACEHOLDER = "<!-- cli-reference -->"
WIDTH = "100"

#: (heading, anchor other pages link to, parser builder in speeduptest.cli)
_COMMANDS = (
    ("speeduptest CONFIG.csv", "analyse", "build_parser"),
    ("speeduptest compare", "compare", "build_compare_parser"),
    ("speeduptest plan", "plan", "build_plan_parser"),
)


def _helps(root: Path) -> list[tuple[str, str, str]]:
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from speeduptest import cli  # imported here: only this page needs it

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # argparse reads the width from COLUMNS
    try:
        return [(title, anchor, getattr(cli, builder)().format_help().rstrip())
                for title, anchor, builder in _COMMANDS]
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if PLACEHOLDER not in markdown:
        raise PluginError(f"{PAGE} has lost its placeholder {PLACEHOLDER}")
    root = Path(config.config_file_path).resolve().parent
    sections = [f"## `{title}` {{#{anchor}}}\n\n```text\n{text}\n```\n"
                for title, anchor, text in _helps(root)]
    return markdown.replace(PLACEHOLDER, "\n".join(sections))
