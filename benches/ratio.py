#!/usr/bin/env python3
"""Summarise criterion's results of `benches/benches/tokenizer.rs` as Markdown.

Reads every `<criterion dir>/**/new/benchmark.json` with its `estimates.json`
(medians) and prints:

- `throughput`: page, chunk size, htrewrite MB/s, lol_html MB/s, ratio
  (htrewrite / lol_html; above 1 means htrewrite is faster);
- `adversarial`: input, size, ns/byte, and the quotient of the per-byte time
  to that at a quarter of the size (about 1.0 when the time grows linearly).

MB/s is 10^6 bytes per second. Usage:

    python3 benches/ratio.py [CRITERION_DIR]

CRITERION_DIR defaults to `$CARGO_TARGET_DIR/criterion`, else `target/criterion`.
"""

import json
import math
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


def chunk_bytes(name):
    """`64KiB` → 65536, `1KiB` → 1024, `512` → 512 (unknown forms sort last)."""
    for suffix, mult in (("MiB", 1 << 20), ("KiB", 1 << 10), ("", 1)):
        if name.endswith(suffix) and name[: len(name) - len(suffix)].isdigit():
            return int(name[: len(name) - len(suffix)]) * mult
    return -1


def throughput_table(rows):
    # rows: function "<engine>-<chunk>", value = page
    by_key = {}
    for _group, function, page, nbytes, median in rows:
        engine, _, chunk = function.partition("-")
        by_key.setdefault((page, chunk), {})[engine] = (nbytes, median)
    out = ["| page | bytes | chunk | htrewrite MB/s | lol_html MB/s | ratio |", "|---|---:|---|---:|---:|---:|"]
    ratios = {}
    for (page, chunk), engines in sorted(by_key.items(), key=lambda kv: (-chunk_bytes(kv[0][1]), kv[0][0])):
        h, l = engines.get("htrewrite"), engines.get("lol_html")
        nbytes = (h or l)[0]
        hs = f"{mb_per_s(*h):.0f}" if h else "—"
        ls = f"{mb_per_s(*l):.0f}" if l else "—"
        if h and l:
            ratio = l[1] / h[1]
            ratios.setdefault(chunk, []).append(ratio)
            rs = f"{ratio:.2f}×"
        else:
            rs = "—"
        out.append(f"| {page} | {nbytes:,} | {chunk} | {hs} | {ls} | {rs} |")
    out.append("")
    for chunk, rs in sorted(ratios.items(), key=lambda kv: -chunk_bytes(kv[0])):
        geo = math.exp(sum(math.log(r) for r in rs) / len(rs))
        out.append(f"{chunk} chunks: geometric mean of the ratios {geo:.2f}× over {len(rs)} workloads "
                   f"(lowest {min(rs):.2f}×, highest {max(rs):.2f}×).  ")
    return "\n".join(out)


def adversarial_table(rows):
    by_input = {}
    for _group, function, value, nbytes, median in rows:
        by_input.setdefault(function, {})[int(value)] = (nbytes, median)
    out = ["| input | size (bytes) | ns/byte | MB/s | per-byte time vs size/4 |",
           "|---|---:|---:|---:|---:|"]
    for name, sizes in sorted(by_input.items()):
        for size in sorted(sizes):
            nbytes, median = sizes[size]
            per_byte = median / nbytes
            smaller = sizes.get(size // 4) if size % 4 == 0 else None
            growth = f"{per_byte / (smaller[1] / smaller[0]):.2f}" if smaller else "—"
            out.append(f"| {name} | {nbytes:,} | {per_byte:.3f} | {mb_per_s(nbytes, median):.0f} | {growth} |")
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
