"""A heap that grows and shrinks in large steps: glibc's ``M_TOP_PAD`` set for the command.

The analysis works in batches of about a thousand benchmarks, each of which makes and frees
arrays of a few hundred kilobytes to a few megabytes (the rows of a batch, their ranks, the
count matrices of the bootstrap). With glibc's defaults the top of the heap is given back to
the system as soon as such a batch frees it, and taken again, page by page, by the next: each
page a fault that the kernel fills with zeros. Asked to keep ``TOP_PAD`` bytes beyond what is
in use whenever it grows or shrinks the heap (``mallopt(M_TOP_PAD)``), glibc keeps those pages
from one batch to the next. (It also stops glibc from adjusting its mmap threshold as blocks
are freed: blocks of 128 KiB or more are then mapped on their own, as they are before the
first is freed.) The peak memory does not change: the pad is kept only below the heap's
high-water mark.

Set once by the command's entry point, before numpy loads, for the whole process and the
children it forks; not by programs that call the API (the setting would be theirs). Only
where the C library is glibc; elsewhere, or switched off (``SPEEDUPTEST_WITHOUT=heap``), the
allocator keeps its defaults.

What it buys, measured for issue 24 (``benchmarks/runtime_mechanisms.py``, ``--format json``,
paired runs, 2-core machine): see docs/performance.md's table, "What each runtime mechanism
buys".
"""

from __future__ import annotations

import ctypes
import os

from speeduptest.runtime import without

#: mallopt's parameter number for the pad (<malloc.h>).
_M_TOP_PAD = -2
#: Bytes kept beyond the heap's use when it grows or shrinks: a few batches' arrays.
TOP_PAD = 32 << 20


def pad_heap(pad: int = TOP_PAD) -> bool:
    """Ask glibc to grow and shrink the heap by at least ``pad`` bytes; whether it was
    done (False: not glibc, or switched off)."""
    if without("heap") or not _glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(_M_TOP_PAD, pad) == 1


def _glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError, AttributeError):  # (no such name here: not glibc)
        return False
