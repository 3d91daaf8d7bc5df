#!/usr/bin/env bash
# Instructions per unit of HTML (issue 16): the cost of one construct in a
# page body, htrewrite beside lol_html, counted with callgrind.
#
#   benches/unit-instructions.sh [--chunk BYTES] [--prefix HTML] [--suffix HTML] UNIT ENGINE WORKLOAD
#
# Writes two documents, `<!DOCTYPE html><html><head><title>t</title></head><body>`
# + PREFIX + UNIT repeated 2,000 (then 4,000) times + SUFFIX + `</body></html>`,
# runs the `rewrite` bench binary (benches/src/bin/rewrite.rs) on each under
# `valgrind --tool=callgrind --toggle-collect='*measured*'` (ENGINE: htrewrite,
# htrewrite_full, lol_html; WORKLOAD: passthrough, cdn, rewrite, count10, text,
# select1000) and prints the difference ÷ 2,000: what one more UNIT costs, the
# document's fixed costs cancelled. Examples (the README's per-unit figures):
#
#   benches/unit-instructions.sh '<code>y</code> ' htrewrite_full passthrough
#   benches/unit-instructions.sh --prefix '<table>' --suffix '</table>' \
#       $'<tr><td>x</td><td>y</td></tr>\n' lol_html rewrite
set -euo pipefail

cd "$(dirname "$0")/.."
chunk=65536 prefix= suffix=
while [ $# -gt 3 ]; do
  case "$1" in
    --chunk) chunk=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --suffix) suffix=$2; shift 2 ;;
    *) echo "unit-instructions.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 3 ] || { sed -n '2,17p' "$0"; exit 2; }
unit=$1 engine=$2 workload=$3
command -v valgrind >/dev/null || { echo "unit-instructions.sh: needs valgrind" >&2; exit 1; }

cargo build --quiet --profile bench -p htrewrite-benches --bin rewrite
bin="${CARGO_TARGET_DIR:-target}/release/rewrite"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*measured*' \
    "$bin" --chunk "$chunk" "$engine" "$workload" "$1" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | head -n 1
}

for n in 2000 4000; do
  UNIT=$unit PREFIX=$prefix SUFFIX=$suffix N=$n python3 -c '
import os, sys
head = "<!DOCTYPE html><html><head><title>t</title></head><body>"
sys.stdout.write(head + os.environ["PREFIX"] + os.environ["UNIT"] * int(os.environ["N"]) + os.environ["SUFFIX"] + "</body></html>")
' > "$dir/$n.html"
done
a=$(count "$dir/2000.html")
b=$(count "$dir/4000.html")
[ -n "$a" ] && [ -n "$b" ] || { echo "unit-instructions.sh: $engine does not do $workload" >&2; exit 1; }
echo "$engine $workload: $(( (b - a) / 2000 )) instructions per unit"
