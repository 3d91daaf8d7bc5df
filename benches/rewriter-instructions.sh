#!/usr/bin/env bash
# Instructions per byte of the rewriter workloads (issue 8): htrewrite's whole
# pipeline side by side with lol_html and html5ever, counted with callgrind.
#
# Instruction counts do not depend on what else the machine is doing, so they
# are the figure to compare on a shared machine (wall clock: benches/benches/rewriter.rs).
#
#   benches/rewriter-instructions.sh [--chunk BYTES] [--workloads "W..."] [FILE...]
#   benches/rewriter-instructions.sh --adversarial [--size N] [--only NAME] [--workloads "W..."] [--chunk BYTES]
#
# Builds the `rewrite` binary (benches/src/bin/rewrite.rs) with the bench
# profile and runs it under `valgrind --tool=callgrind --toggle-collect='*measured*'`,
# which counts only the engine's run (not reading files, generating inputs or
# compiling the shared selectors). Workloads default to
# "passthrough cdn rewrite count10 text select1000"; every engine that does a
# workload runs it (htrewrite, htrewrite_full — the whole pipeline on every byte,
# Settings::full_pipeline, for passthrough and cdn —, lol_html, html5ever_tokenizer,
# html5ever_dom).
# Files default to the three lol-html bench pages (under $HTREWRITE_CORPUS
# when set, else tests/data/corpus/); a row per page and one for all three.
# --adversarial: htrewrite on every adversarial input (tokenizer and tree
# shapes; --only NAME for one) at N, 2N and 4N bytes (N default 64K), with the
# growth of the instruction count from N to 4N (4.00 = linear) and the
# instructions per byte at 4N.
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=benches/common.sh
source benches/common.sh
chunk=65536
workloads="passthrough cdn rewrite count10 text select1000"
files=()
adversarial=
only=
size=64K
while [ $# -gt 0 ]; do
  case "$1" in
    --chunk) chunk=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    --adversarial) adversarial=1; shift ;;
    --size) size=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
rewrite_bin rewriter-instructions.sh

# count ENGINE WORKLOAD INPUT...: instructions inside `measured`, or empty when
# the engine does not do the workload.
count() {
  local engine=$1 workload=$2 out
  shift 2
  out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*measured*' \
    "$bin" --chunk "$chunk" "$engine" "$workload" "$@" 2>&1 >/dev/null) || return 0
  echo "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | head -n 1
}

per_byte() { python3 -c "import sys; v = int(sys.argv[1]) / int(sys.argv[2]); print(f'{v:.1f}' if v >= 1 else f'{v:.3f}')" "$1" "$2"; }

if [ -n "$adversarial" ]; then
  n=$(python3 -c "import sys; s=sys.argv[1].upper(); m={'K': 1 << 10, 'M': 1 << 20}; print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))" "$size") ||
    { echo "rewriter-instructions.sh: bad --size $size" >&2; exit 2; }
  names=${only:-$("$bin" --list-adversarial)}
  echo "htrewrite on adversarial inputs (callgrind; chunks of $chunk bytes; N = $n bytes)"
  echo
  echo "| input | workload | bytes at 4N | instr/byte at N | at 2N | at 4N | I(2N) / I(N) | I(4N) / I(N) |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  for name in $names; do
    for workload in $workloads; do
      row=() counts=() sizes=()
      for bytes in "$n" $((2 * n)) $((4 * n)); do
        real=$("$bin" htrewrite passthrough --adversarial "$name" "$bytes" | cut -d' ' -f2)
        c=$(count htrewrite "$workload" --adversarial "$name" "$bytes")
        counts+=("$c") sizes+=("$real")
        row+=("$(per_byte "$c" "$real")")
      done
      g2=$(python3 -c "print(f'{${counts[1]} / ${counts[0]}:.2f}')")
      g4=$(python3 -c "print(f'{${counts[2]} / ${counts[0]}:.2f}')")
      echo "| $name | $workload | ${sizes[2]} | ${row[0]} | ${row[1]} | ${row[2]} | $g2 | $g4 |"
    done
  done
  exit 0
fi

if [ ${#files[@]} -eq 0 ]; then
  default_pages rewriter-instructions.sh
fi

engines="htrewrite htrewrite_full lol_html html5ever_tokenizer html5ever_dom"
echo "Instructions per byte (callgrind, only the engine's run; chunks of $chunk bytes)"
echo
echo "| workload | input | bytes | htrewrite | htrewrite, full pipeline | lol_html | html5ever tokenizer | html5ever parse + serialize | lol_html ÷ htrewrite |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for workload in $workloads; do
  inputs=("${files[@]}")
  [ ${#files[@]} -gt 1 ] && inputs+=("all")
  for input in "${inputs[@]}"; do
    if [ "$input" = all ]; then args=("${files[@]}"); label="all ${#files[@]}"; else args=("$input"); label=$(basename "$input" .html); fi
    bytes=$(cat "${args[@]}" | wc -c)
    declare -A per=()
    line="| $workload | $label | $bytes"
    for engine in $engines; do
      c=$(count "$engine" "$workload" "${args[@]}")
      if [ -n "$c" ]; then per[$engine]=$(per_byte "$c" "$bytes"); else per[$engine]="—"; fi
      line="$line | ${per[$engine]}"
    done
    echo "$line | $(python3 -c "a, b = ${per[lol_html]}, ${per[htrewrite]}; print(f'{a / b:.2f}×' if b else '∞')") |"
    unset per
  done
done
