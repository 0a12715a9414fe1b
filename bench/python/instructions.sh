#!/usr/bin/env bash
# Instructions per request inside the a2a-sdk 1.3.0 request handler (no HTTP), counted by
# callgrind: plain, plain given the governed request body, and governed (instructions.py). Each
# variant runs twice, with LOW and HIGH requests after the same start-up and warm-up; the
# difference divided by HIGH - LOW is one request, whatever else the machine is doing.
# Needs valgrind and target/bench-py-venv (bench/python/run.sh makes it). About a minute of one
# core per run. Usage: bench/python/instructions.sh [LOW HIGH] (default 100 400); env VARIANTS
# picks the variants (default "plain body governed"; the first is the baseline).
set -euo pipefail
cd "$(dirname "$0")/../.."
LOW=${1:-100}
HIGH=${2:-400}
PY=target/bench-py-venv/bin/python
OUT=target/bench-py
mkdir -p "$OUT"

count() { # VARIANT N -> instructions of the whole run
    valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$1.$2" "$PY" bench/python/instructions.py "$1" "$2" \
        2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "| variant | instructions per request | added to plain |"
echo "|---|---|---|"
base=
for v in ${VARIANTS:-plain body governed}; do
    lo=$(count "$v" "$LOW")
    hi=$(count "$v" "$HIGH")
    per=$(( (hi - lo) / (HIGH - LOW) ))
    [ -n "$base" ] || base=$per
    echo "| $v | $per | $(( per - base )) ($(awk -v a="$per" -v b="$base" 'BEGIN{printf "%+.1f%%", (a/b-1)*100}')) |"
done
echo
echo "callgrind, $LOW and $HIGH requests after 100 of warm-up; skillgate $(git rev-parse --short HEAD)"
