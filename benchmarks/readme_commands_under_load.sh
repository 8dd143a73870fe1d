#!/usr/bin/env bash
# The README's two commands, exactly as written, on a clean clone in a fresh venv with pip's own
# choice of torch, beside one CPU-bound spinner per core (issue 24's acceptance; figures in
# benchmarks/README.md). Usage: benchmarks/readme_commands_under_load.sh [REPO] [WORKDIR]
# REPO defaults to this checkout, WORKDIR to a new temporary folder. Prints the exit code and wall
# time of each command; their output is kept in WORKDIR/first.log and WORKDIR/tests.log.
set -u
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
work=${2:-$(mktemp -d)}
git clone -q "$repo" "$work/clone" && cd "$work/clone" || exit 2
git log --oneline -1
spinners=()
for _ in $(seq "$(nproc)"); do python3 -c 'while 1: pass' & spinners+=($!); done
trap 'kill "${spinners[@]}" 2>/dev/null' EXIT
start=$(date +%s)
bash -c "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[capsules]' && claimcheck verify wiki/" > "$work/first.log" 2>&1
echo "first command: rc=$? wall=$(( $(date +%s) - start ))s"; tail -1 "$work/first.log"
start=$(date +%s)
bash -c ". .venv/bin/activate && pip install -e '.[capsules,dev,ray]' && python -m pytest -q" > "$work/tests.log" 2>&1
echo "test command: rc=$? wall=$(( $(date +%s) - start ))s"; tail -1 "$work/tests.log"
. .venv/bin/activate && python -c 'import torch; print("torch", torch.__version__)' && du -sh .venv
