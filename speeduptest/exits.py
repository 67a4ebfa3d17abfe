"""The command's exit statuses, in one place for the entry point and the command line."""

#: Every benchmark analysed.
EXIT_OK = 0
#: Reports written, but some benchmarks have errors.
EXIT_BENCHMARK_ERRORS = 1
#: Bad usage or options, a file or folder that could not be used, or nothing analysed.
EXIT_NOTHING_ANALYSED = 2
#: With --fail-on-slowdown: some benchmark is called slower.
EXIT_SLOWER = 3
#: An internal error (a bug: please report it).
EXIT_INTERNAL = 4
#: With --fail-on-slowdown: more of the benchmarks named in the files were not compared (no
#: counterpart by name) than --max-unpaired allows.
EXIT_UNPAIRED = 5
#: Interrupted (Ctrl-C).
EXIT_INTERRUPTED = 130
#: Ended by SIGTERM (128 + 15, as the shells report it).
EXIT_TERMINATED = 143
