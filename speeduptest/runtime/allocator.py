"""Keeping freed memory in the process for reuse (glibc only), for the command line.

A run of 100,000 benchmarks allocates and frees arrays and results of a few GB in all. By
default glibc gives large blocks back to the system when they are freed (``munmap``, heap
trimming), so the next allocation of the same size touches fresh pages again; on the 2-core
virtual machine of the benchmarks a first touch costs ~10 µs (it is a fault in the host too).
Measured when it was added (``benchmarks/versus_r.py --sizes 100000 --skip-r``): 47 s → 40 s,
page faults 850,000 → 600,000, peak RSS unchanged (2.3 GB); no change at 10,000 benchmarks.
The process ends with the run, so what it keeps is not lost for long. Library users are
left alone: only the command line (``cli.console_main``) calls :func:`keep_freed_memory`.

What it buys now, measured for issue 24 (``SPEEDUPTEST_WITHOUT=allocator``: glibc's default
settings; ``benchmarks/runtime_mechanisms.py``, ``--format json``, median of runs paired with a
run as it is, 2-core machine): 4.5% of the run at 10,000 pairs of 31 values (1.95 s without,
1.86 s with), 2.3% at 100,000 (15.4 s without, 15.1 s with; the run took 40 s when it was
added): below issue 24's bar of 5%.
"""

from __future__ import annotations

import ctypes

from speeduptest.runtime import without

# mallopt parameters (<malloc.h>)
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap, where freed memory is reused (glibc's maximum
#: on 64-bit systems; by default blocks from 128 KiB up are mapped and unmapped each time).
_MAPPED_FROM = 32 << 20
#: Free memory at the top of the heap kept rather than given back (the largest value).
_KEPT = (1 << 31) - 1
#: Extra memory asked for each time the heap grows (fewer, larger growths).
_GROWTH_PAD = 64 << 20


def keep_freed_memory() -> bool:
    """Tell glibc's allocator to keep freed memory for reuse; False where it is not glibc
    (or when switched off: ``SPEEDUPTEST_WITHOUT=allocator``)."""
    if without("allocator"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # not glibc (macOS, musl; Windows: TypeError)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(mallopt(parameter, value) == 1 for parameter, value in (
        (_M_MMAP_THRESHOLD, _MAPPED_FROM), (_M_TRIM_THRESHOLD, _KEPT), (_M_TOP_PAD, _GROWTH_PAD)))
