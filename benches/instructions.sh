#!/usr/bin/env bash
# Instructions per byte of htrewrite raw tokenization and of lol_html pass-through.
#
# Instruction counts do not depend on what else the machine is doing, so they are
# the figure to compare on a shared machine (wall-clock benches are in
# benches/benches/tokenizer.rs).
#
#   benches/instructions.sh [--chunk BYTES] [--iterations K] [FILE...]
#   benches/instructions.sh --adversarial [--size N] [--chunk BYTES]
#
# Builds the `count` binary (benches/src/bin/count.rs) with the bench profile,
# then for each file and engine counts user-space instructions of a run with K
# passes over the file and of a run with 0 passes (reading the file only), with
# `perf stat -e instructions:u` when the machine has the counter, else with
# `valgrind --tool=callgrind`; instructions/byte = (I(K) - I(0)) / (K × bytes).
# Files default to the three lol-html bench pages: under $HTREWRITE_CORPUS when
# set, else under tests/data/corpus/.
# --adversarial: instead of files, htrewrite on each adversarial input of the
# criterion group at N and 4N bytes (N default 256K), with the growth of the
# per-byte count from N to 4N (1.00 = linear).
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=benches/common.sh
source benches/common.sh
chunk=65536
iterations=2
files=()
adversarial=
size=256K
while [ $# -gt 0 ]; do
  case "$1" in
    --chunk) chunk=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --adversarial) adversarial=1; shift ;;
    --size) size=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [ ${#files[@]} -eq 0 ] && [ -z "$adversarial" ]; then
  default_pages instructions.sh
fi

cargo build --quiet --profile bench -p htrewrite-benches --bin count
count="${CARGO_TARGET_DIR:-target}/release/count"
[ -x "$count" ] || { echo "instructions.sh: $count was not built" >&2; exit 1; }

if perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep -Eq '^[0-9]+,'; then
  tool=perf
elif command -v valgrind >/dev/null; then
  tool=callgrind
else
  echo "instructions.sh: needs perf with an instructions counter, or valgrind" >&2
  exit 1
fi

# instructions ENGINE ITERATIONS INPUT...: user-space instructions of one run
# (INPUT: a file, or `--adversarial NAME --size N`).
instructions() {
  local engine=$1 passes=$2 out
  shift 2
  if [ "$tool" = perf ]; then
    out=$(perf stat -x, -e instructions:u "$count" --engine "$engine" --chunk "$chunk" --iterations "$passes" "$@" 2>&1 >/dev/null)
    echo "$out" | grep -E '^[0-9]+,' | head -n 1 | cut -d, -f1
  else
    out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$count" --engine "$engine" --chunk "$chunk" --iterations "$passes" "$@" 2>&1 >/dev/null)
    echo "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | head -n 1
  fi
}

if [ -n "$adversarial" ]; then
  n=$(python3 -c "import sys; s=sys.argv[1].upper(); m={'K': 1 << 10, 'M': 1 << 20}; print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))" "$size") ||
    { echo "instructions.sh: bad --size $size" >&2; exit 2; }
  echo "htrewrite instructions per byte on adversarial inputs ($tool; $iterations passes; chunks of $chunk bytes)"
  echo
  echo "| input | bytes at N | instr/byte at N | bytes at 4N | instr/byte at 4N | growth |"
  echo "|---|---:|---:|---:|---:|---:|"
  for name in $("$count" --list-adversarial); do
    row="| $name"
    per=()
    for bytes in "$n" $((4 * n)); do
      real=$("$count" --engine htrewrite --adversarial "$name" --size "$bytes" --iterations 0 | sed -n 's/.*bytes_per_iteration=\([0-9]*\).*/\1/p')
      base=$(instructions htrewrite 0 --adversarial "$name" --size "$bytes")
      full=$(instructions htrewrite "$iterations" --adversarial "$name" --size "$bytes")
      p=$(python3 -c "print(f'{($full - $base) / ($iterations * $real):.2f}')")
      per+=("$p")
      row="$row | $real | $p"
    done
    echo "$row | $(python3 -c "print(f'{${per[1]} / ${per[0]}:.2f}')") |"
  done
  exit 0
fi

echo "Instructions per byte ($tool; $iterations passes; chunks of $chunk bytes; count binary: $count)"
echo
echo "| file | bytes | htrewrite instr/byte | lol_html instr/byte | lol_html / htrewrite |"
echo "|---|---:|---:|---:|---:|"
for file in "${files[@]}"; do
  bytes=$(wc -c <"$file")
  declare -A per_byte=()
  for engine in htrewrite lol_html; do
    base=$(instructions "$engine" 0 "$file")
    full=$(instructions "$engine" "$iterations" "$file")
    per_byte[$engine]=$(python3 -c "print(f'{($full - $base) / ($iterations * $bytes):.2f}')")
  done
  ratio=$(python3 -c "print(f'{${per_byte[lol_html]} / ${per_byte[htrewrite]}:.2f}')")
  echo "| $(basename "$file") | $bytes | ${per_byte[htrewrite]} | ${per_byte[lol_html]} | ${ratio}× |"
  unset per_byte
done
