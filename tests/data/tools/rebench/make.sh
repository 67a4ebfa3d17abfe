#!/usr/bin/env bash
# Regenerates every file of this folder (run it from this folder), except
# FORMAT.md, which is hand-written.
#
# Needs ReBench (latest from PyPI) in a virtual environment, e.g.:
#   python3 -m venv /tmp/fixtures-venv-rebench
#   /tmp/fixtures-venv-rebench/bin/pip install rebench
#   REBENCH=/tmp/fixtures-venv-rebench/bin/rebench ./make.sh
# and python3 on the PATH (the executors of rebench.conf run "python3 harness.py ...").
#
# Output:
#   benchmark.data  ReBench data file: executors initial and optimized, suite micro
#                   (Sort, Lookup, Loop) for both, suite extra (Cache) for optimized only;
#                   3 invocations x 5 iterations (first one a warm-up) per benchmark
#   version.txt     rebench --version
set -euo pipefail

REBENCH=${REBENCH:-/tmp/fixtures-venv-rebench/bin/rebench}

rm -f benchmark.data version.txt
"$REBENCH" --version > version.txt

# -D          no denoise (it needs root/sudo rights and changes system settings)
# -c          start from an empty data file
# --git-repo /  ReBench records the git commit (message, author names and e-mails)
#             of the folder it runs in into the "# Source:" line; pointing it to a
#             folder that is no git repository records nulls instead.
# rebench.conf's default_data_file is benchmark.data.
"$REBENCH" -D -c --git-repo / rebench.conf
