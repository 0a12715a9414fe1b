#!/bin/sh
# Test exec skill in shell: counts its runs, reads its arguments, answers with a record.
echo run >> runs.log
input=$(cat)
case "$input" in
  *'"refuse"'*)
    printf '{"error":{"code":"constraint_rejected","message":"shell says no"}}\n'
    exit 3 ;;
esac
printf '{"output":{"n":7},"records":[{"kind":"note","data":{"text":"from sh"}}]}\n'
