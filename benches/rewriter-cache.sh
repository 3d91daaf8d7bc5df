#!/usr/bin/env bash
# Instruction-cache misses and branch mispredictions of the rewriter
# workloads, htrewrite side by side with lol_html (issue 16): what the
# instruction counts of benches/rewriter-instructions.sh do not show and the
# wall clock does.
#
#   benches/rewriter-cache.sh [--chunk BYTES] [--workloads "W..."] [FILE...]
#
# Runs the `rewrite` binary (benches/src/bin/rewrite.rs, bench profile) under
# `valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes
# --toggle-collect='*measured*'`: only the engine's run is counted, on a
# simulated cache of this machine's sizes (callgrind reads them from the CPU)
# and a simulated branch predictor. Like instruction counts, the figures do
# not depend on what else the machine is doing. Per byte of input: instructions
# (Ir), level-1 instruction-cache misses (I1mr), level-1 data-cache misses
# (D1mr + D1mw), conditional and indirect branch mispredictions (Bcm + Bim),
# the engine's warm code (KiB of 64-byte lines of code that ran 1,000
# instructions or more in the run: what competes for the instruction cache),
# and an estimate of cycles, Ir / 4 + 12 × I1mr + 4 × D1 + 15 × (Bcm + Bim):
# four instructions a cycle when nothing stalls, about 12 cycles to refill a
# line from the level-2 cache and about 15 to recover from a mispredicted
# branch (orders of magnitude for current x86 cores, not measurements of
# this one). The estimate only ranks the engines; the wall clock is
# benches/benches/rewriter.rs.
# A second run simulates a fully associative level-1 instruction cache of
# the same size (`--I1=32768,512,64`, least recently used line out): its
# misses ("I1 misses, fully associative") are those of capacity alone — the
# code that runs between two uses of a line did not fit in 32 KiB —, which
# do not depend on where the linker put each function, as the 8-way cache's
# conflict misses do (code that moves without shrinking changes those, for
# either engine, by a third and more).
# Workloads default to "count10 rewrite text"; files to the three lol-html
# bench pages (under $HTREWRITE_CORPUS when set, else tests/data/corpus/).
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=benches/common.sh
source benches/common.sh
chunk=65536
workloads="count10 rewrite text"
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --chunk) chunk=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
rewrite_bin rewriter-cache.sh

if [ ${#files[@]} -eq 0 ]; then
  default_pages rewriter-cache.sh
fi
bytes=$(cat "${files[@]}" | wc -c)
profile=$(mktemp)
trap 'rm -f "$profile"' EXIT

echo "Per byte of input (callgrind cache and branch simulation, only the engine's run; ${#files[@]} files, $bytes bytes, chunks of $chunk bytes)"
echo
echo "| workload | engine | instructions | I1 misses | I1 misses, fully associative | D1 misses | branch mispredictions | warm code, KiB | estimated cycles | lol_html ÷ htrewrite, instructions | lol_html ÷ htrewrite, estimated cycles |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for workload in $workloads; do
  declare -A ir=() cycles=()
  for engine in htrewrite lol_html; do
    valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes --dump-instr=yes --compress-pos=no --callgrind-out-file="$profile" \
      --toggle-collect='*measured*' "$bin" --chunk "$chunk" "$engine" "$workload" "${files[@]}" >/dev/null 2>&1
    # Capacity misses: the same run on a fully associative 32 KiB cache.
    capacity=$(valgrind --tool=callgrind --cache-sim=yes --I1=32768,512,64 --callgrind-out-file=/dev/null \
      --toggle-collect='*measured*' "$bin" --chunk "$chunk" "$engine" "$workload" "${files[@]}" 2>&1 >/dev/null |
      sed -n 's/.*I1  misses: *\([0-9,]*\).*/\1/p' | tr -d ,)
    # The events line names the columns of the summary line.
    out=$(python3 - "$profile" "$bytes" "$workload" "$engine" "$capacity" <<'EOF'
import collections, re, sys
path, n, workload, engine, capacity = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
events = summary = None
# Self cost per 64-byte line of code (per object file): the cost lines are
# "address line Ir ...", each after a "calls=" line being the call's, skipped.
lines = collections.Counter()
ob = None
after_call = False
for line in open(path):
    if line.startswith("events:"):
        events = line.split()[1:]
    elif line.startswith("summary:"):
        summary = [int(v) for v in line.split()[1:]]
    elif line.startswith("ob="):
        ob = line[3:].split()[0]
    elif line.startswith("calls="):
        after_call = True
    elif m := re.match(r"^0x([0-9a-f]+) \S+ (\d+)", line):
        if after_call:
            after_call = False
        else:
            lines[(ob, int(m.group(1), 16) >> 6)] += int(m.group(2))
e = dict(zip(events, summary))
warm = sum(1 for v in lines.values() if v >= 1000) * 64 / 1024
ir, i1 = e["Ir"], e["I1mr"]
d1 = e["D1mr"] + e["D1mw"]
br = e["Bcm"] + e["Bim"]
cyc = ir / 4 + 12 * i1 + 4 * d1 + 15 * br
print(f"| {workload} | {engine} | {ir / n:.1f} | {i1 / n:.3f} | {capacity / n:.3f} | {d1 / n:.3f} | {br / n:.3f} | {warm:.1f} | {cyc / n:.1f} | | |")
print(ir, cyc)
EOF
)
    echo "$out" | head -n 1
    read -r i c <<<"$(echo "$out" | tail -n 1)"
    ir[$engine]=$i cycles[$engine]=$c
  done
  python3 -c "import sys; a, b, c, d = map(float, sys.argv[1:5]); print(f'| {sys.argv[5]} | ratio | | | | | | | | {a / b:.2f}× | {c / d:.2f}× |')" \
    "${ir[lol_html]}" "${ir[htrewrite]}" "${cycles[lol_html]}" "${cycles[htrewrite]}" "$workload"
  unset ir cycles
done
