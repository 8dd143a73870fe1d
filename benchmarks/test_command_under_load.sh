#!/usr/bin/env bash
# The README's test command (`python -m pytest -q`) on a clean clone, beside one CPU-bound spinner
# per core, in an existing virtual environment (the README's install step is timed by
# readme_commands_under_load.sh). Figures in benchmarks/README.md, "The test suite and the
# README's commands". Usage: benchmarks/test_command_under_load.sh [REPO] [WORKDIR] [VENV]
# REPO defaults to this checkout, WORKDIR to a new temporary folder, VENV to REPO/.venv.
# Prints the commit, the load average before and after, wall and CPU time (the suite's processes
# and the children they waited for), the exit code and pytest's last line; its output is kept in
# WORKDIR/tests.log. SPINNERS=0 runs without the spinners.
set -u
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
work=${2:-$(mktemp -d)}
venv=${3:-$repo/.venv}
git clone -q "$repo" "$work/clone" && cd "$work/clone" || exit 2
git log --oneline -1
spinners=()
for _ in $(seq "${SPINNERS:-$(nproc)}"); do python3 -c 'while 1: pass' & spinners+=($!); done
trap 'kill "${spinners[@]}" 2>/dev/null' EXIT
echo "spinners: ${#spinners[@]}, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
TIMEFORMAT='test command: wall %0R s, CPU %0U s user + %0S s system (children waited for)'
time bash -c ". '$venv/bin/activate' && python -m pytest -q" > "$work/tests.log" 2>&1
echo "rc=$? load after: $(cut -d' ' -f1-3 /proc/loadavg)"
tail -1 "$work/tests.log"
