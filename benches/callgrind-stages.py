#!/usr/bin/env python3
"""Where htrewrite's instructions go: a callgrind profile summed by pipeline stage.

Runs `callgrind_annotate` on a profile written by `benches/src/bin/rewrite.rs`
under `valgrind --tool=callgrind --toggle-collect='*measured*'` and sums each
function's self cost by stage: code whose source file is in `crates/<stage>/`
counts for that stage (so code the compiler inlined from the shadow into the
rewriter still counts as shadow); std code inlined into a crate's function
counts for that crate; malloc/free, memcpy/memset and the rest are listed by
name. Prints a Markdown table in instructions per input byte.

    cargo build --profile bench -p htrewrite-benches --bin rewrite
    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg --toggle-collect='*measured*' \\
        target/release/rewrite htrewrite passthrough tests/data/corpus/lol-html-bench/*.html
    python3 benches/callgrind-stages.py /tmp/cg 1224708     # profile, input bytes

The listing callgrind_annotate prints sums to a few percent more than the
profile's total; the shares are approximate.
"""

import collections
import re
import subprocess
import sys

STAGES = ["tokenizer", "shadow", "selectors", "rewriter"]
# Crate names as they appear in symbols, for std code inlined into a crate's function.
SYMBOLS = [("htrewrite_selectors", "selectors"), ("htrewrite_shadow", "shadow"),
           ("htrewrite_tokenizer::tokenizer", "tokenizer"), ("htrewrite::", "rewriter")]
LINE = re.compile(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):(.*)")


def stage_of(path, function, line):
    for stage in STAGES:
        if f"crates/{stage}/" in path:
            return stage
    if "libc" in line and re.search(r"malloc|free|realloc|_int_", function):
        return "malloc/free"
    if re.search(r"memcpy|memmove|memset", function):
        return "memcpy/memset"
    for symbol, stage in SYMBOLS:
        if symbol in function:
            return stage
    return "other: " + function.split("[")[0].strip()[:70]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: callgrind-stages.py CALLGRIND_OUT INPUT_BYTES")
    profile, nbytes = sys.argv[1], int(sys.argv[2])
    listing = subprocess.run(["callgrind_annotate", "--threshold=100", profile],
                             check=True, capture_output=True, text=True).stdout
    totals = collections.Counter()
    for line in listing.splitlines():
        m = LINE.match(line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        totals[stage_of(m.group(2), m.group(3), line)] += int(m.group(1).replace(",", ""))
    listed = sum(totals.values())
    print("| stage | instructions | share | instr/byte |")
    print("|---|---:|---:|---:|")
    for stage, count in totals.most_common(15):
        print(f"| {stage} | {count:,} | {100 * count / listed:.1f} % | {count / nbytes:.1f} |")
    print(f"| **listed** | {listed:,} | 100 % | {listed / nbytes:.1f} |")


if __name__ == "__main__":
    main()
