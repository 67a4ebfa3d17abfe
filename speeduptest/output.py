"""Writing report files: all or nothing, never a half-written file in the output folder."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def write_files(directory: Path, files: dict[str, bytes]) -> list[str]:
    """Write every file of ``files`` (name → content) into ``directory``, atomically each.

    Each file is written to a temporary name in the same folder and renamed into place, so a
    reader never sees a partial file and a failure leaves no temporary file behind.
    """
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        temporary = directory / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            with open(temporary, "xb") as stream:  # "x": never an existing file; umask applies
                stream.write(content)
            os.replace(temporary, directory / name)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
    return list(files)
