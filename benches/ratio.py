#!/usr/bin/env python3
"""Summarise criterion's results of `benches/benches/tokenizer.rs` as Markdown.

Reads every `<criterion dir>/**/new/benchmark.json` with its `estimates.json`
(medians) and prints:

- `throughput`: page, chunk size, htrewrite MB/s, lol_html MB/s, ratio
  (htrewrite / lol_html; above 1 means htrewrite is faster);
- `adversarial`: input, ns/byte at n and at 4n, and their quotient (about 1.0
  when the time grows linearly).

MB/s is 10^6 bytes per second. Usage:

    python3 benches/ratio.py [CRITERION_DIR]

CRITERION_DIR defaults to `$CARGO_TARGET_DIR/criterion`, else `target/criterion`.
"""

import json
import os
import sys
from pathlib import Path


def criterion_dir() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    target = os.environ.get("CARGO_TARGET_DIR") or str(Path(__file__).resolve().parent.parent / "target")
    return Path(target) / "criterion"


def load(root: Path):
    """Yields (group, function, value, bytes, median_ns) for every benchmark."""
    for bench in sorted(root.glob("**/new/benchmark.json")):
        estimates = bench.with_name("estimates.json")
        if not estimates.exists():
            continue
        meta = json.loads(bench.read_text())
        median = json.loads(estimates.read_text())["median"]["point_estimate"]
        throughput = meta.get("throughput") or {}
        nbytes = throughput.get("Bytes") or throughput.get("BytesDecimal")
        yield meta["group_id"], meta.get("function_id"), meta.get("value_str"), nbytes, median


def mb_per_s(nbytes, median_ns):
    return nbytes / median_ns * 1e3


def throughput_table(rows):
    # rows: function "<engine>-<chunk>", value = page
    by_key = {}
    for _group, function, page, nbytes, median in rows:
        engine, _, chunk = function.partition("-")
        by_key.setdefault((page, chunk), {})[engine] = (nbytes, median)
    out = ["| page | bytes | chunk | htrewrite MB/s | lol_html MB/s | ratio |", "|---|---:|---|---:|---:|---:|"]
    ratios = []
    for (page, chunk), engines in sorted(by_key.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        h, l = engines.get("htrewrite"), engines.get("lol_html")
        nbytes = (h or l)[0]
        hs = f"{mb_per_s(*h):.0f}" if h else "—"
        ls = f"{mb_per_s(*l):.0f}" if l else "—"
        if h and l:
            ratio = l[1] / h[1]
            ratios.append(ratio)
            rs = f"{ratio:.2f}×"
        else:
            rs = "—"
        out.append(f"| {page} | {nbytes:,} | {chunk} | {hs} | {ls} | {rs} |")
    if ratios:
        geo = 1.0
        for r in ratios:
            geo *= r
        geo **= 1 / len(ratios)
        out.append(f"\nGeometric mean of the ratios: {geo:.2f}× over {len(ratios)} page/chunk pairs "
                   f"(lowest {min(ratios):.2f}×).")
    return "\n".join(out)


def adversarial_table(rows):
    by_input = {}
    for _group, function, value, nbytes, median in rows:
        by_input.setdefault(function, []).append((int(value), nbytes, median))
    out = ["| input | n (bytes) | ns/byte at n | ns/byte at 4n | 4n / n per byte | MB/s at 4n |",
           "|---|---:|---:|---:|---:|---:|"]
    for name, sizes in sorted(by_input.items()):
        sizes.sort()
        small, large = sizes[0], sizes[-1]
        per_small = small[2] / small[1]
        per_large = large[2] / large[1]
        quotient = f"{per_large / per_small:.2f}" if len(sizes) > 1 else "—"
        out.append(f"| {name} | {small[1]:,} | {per_small:.3f} | {per_large:.3f} | {quotient} | "
                   f"{mb_per_s(large[1], large[2]):.0f} |")
    return "\n".join(out)


def main():
    root = criterion_dir()
    rows = list(load(root))
    if not rows:
        sys.exit(f"ratio.py: no criterion results under {root}; run "
                 "`cargo bench -p htrewrite-benches --bench tokenizer` first")
    groups = {}
    for row in rows:
        if row[3] is None:
            continue
        groups.setdefault(row[0], []).append(row)
    if "throughput" in groups:
        print("### Throughput (median; htrewrite raw tokenization vs lol_html pass-through)\n")
        print(throughput_table(groups["throughput"]))
        print()
    if "adversarial" in groups:
        print("### Adversarial inputs (median, htrewrite, 64 KiB chunks)\n")
        print(adversarial_table(groups["adversarial"]))


if __name__ == "__main__":
    main()
