#!/usr/bin/env python3
"""Summarise criterion's results of `benches/benches/{tokenizer,rewriter}.rs` as Markdown.

Reads every `<criterion dir>/**/new/benchmark.json` with its `estimates.json`
(medians) and prints:

- `rewriter/<workload>` groups: per workload and chunk size, the aggregate MB/s
  of every engine over all page sets (total bytes / total median time) and the
  time ratio lol_html / htrewrite (above 1 means htrewrite is faster):
  geometric mean over the page sets, lowest and highest; then the per-page rows;

- `rewriter_adversarial/<input>` groups: ns/byte at n, 2n, 4n per workload and
  the time ratio 4n ÷ n (4.0 when time is linear);
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


REWRITER_ENGINES = ["htrewrite", "htrewrite_full", "lol_html", "html5ever_tokenizer", "html5ever_dom"]
WORKLOAD_ORDER = ["passthrough", "cdn", "rewrite", "count10", "text", "select1000"]


def rewriter_tables(groups):
    """groups: {"rewriter/<workload>": rows}; returns (summary, per-page) Markdown."""
    data = {}  # (workload, chunk) -> page -> engine -> (bytes, median)
    for group, rows in groups.items():
        workload = group.split("/", 1)[1]
        for _group, function, page, nbytes, median in rows:
            engine, _, chunk = function.rpartition("-")
            data.setdefault((workload, chunk), {}).setdefault(page, {})[engine] = (nbytes, median)

    def order(key):
        workload, chunk = key
        rank = WORKLOAD_ORDER.index(workload) if workload in WORKLOAD_ORDER else len(WORKLOAD_ORDER)
        return (rank, -chunk_bytes(chunk))

    summary = ["| workload | chunk | htrewrite MB/s | htrewrite, full pipeline MB/s | lol_html MB/s "
               "| html5ever tokenizer MB/s | html5ever parse + serialize MB/s "
               "| lol_html ÷ htrewrite (time), geometric mean | lowest | highest |",
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    pages = ["| workload | chunk | page set | bytes | " + " | ".join(f"{e} MB/s" for e in REWRITER_ENGINES)
             + " | lol_html ÷ htrewrite |", "|---|---|---|---:|" + "---:|" * len(REWRITER_ENGINES) + "---:|"]
    for key in sorted(data, key=order):
        workload, chunk = key
        by_page = data[key]
        cells = []
        for engine in REWRITER_ENGINES:
            runs = [e[engine] for e in by_page.values() if engine in e]
            if runs and len(runs) == len(by_page):
                cells.append(f"{mb_per_s(sum(b for b, _ in runs), sum(t for _, t in runs)):.1f}")
            else:
                cells.append("—")
        ratios = [e["lol_html"][1] / e["htrewrite"][1] for e in by_page.values() if "lol_html" in e and "htrewrite" in e]
        if ratios:
            geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            tail = [f"{geo:.2f}×", f"{min(ratios):.2f}×", f"{max(ratios):.2f}×"]
        else:
            tail = ["—", "—", "—"]
        summary.append(f"| {workload} | {chunk} | " + " | ".join(cells + tail) + " |")
        for page in sorted(by_page):
            e = by_page[page]
            nbytes = next(iter(e.values()))[0]
            speeds = [f"{mb_per_s(*e[n]):.1f}" if n in e else "—" for n in REWRITER_ENGINES]
            ratio = f"{e['lol_html'][1] / e['htrewrite'][1]:.2f}×" if "lol_html" in e and "htrewrite" in e else "—"
            pages.append(f"| {workload} | {chunk} | {page} | {nbytes:,} | " + " | ".join(speeds) + f" | {ratio} |")
    return "\n".join(summary), "\n".join(pages)


def rewriter_adversarial_table(groups):
    """groups: {"rewriter_adversarial/<input>": rows}; time per byte at n, 2n, 4n."""
    out = ["| input | workload | bytes at 4n | ns/byte at n | at 2n | at 4n | time 4n ÷ time n |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for group in sorted(groups):
        name = group.split("/", 1)[1]
        by_workload = {}
        for _group, workload, value, nbytes, median in groups[group]:
            by_workload.setdefault(workload, {})[int(value)] = (nbytes, median)
        for workload in sorted(by_workload, key=lambda w: WORKLOAD_ORDER.index(w) if w in WORKLOAD_ORDER else 99):
            sizes = by_workload[workload]
            ordered = [sizes[k] for k in sorted(sizes)]
            per = [f"{t / b:.2f}" for b, t in ordered]
            growth = f"{ordered[-1][1] / ordered[0][1]:.2f}" if len(ordered) > 1 else "—"
            out.append(f"| {name} | {workload} | {ordered[-1][0]:,} | " + " | ".join(per) + f" | {growth} |")
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
                 "`cargo bench -p htrewrite-benches` first")
    groups = {}
    for row in rows:
        if row[3] is None:
            continue
        groups.setdefault(row[0], []).append(row)
    rewriter = {g: r for g, r in groups.items() if g.startswith("rewriter/")}
    if rewriter:
        summary, per_page = rewriter_tables(rewriter)
        print("### Rewriter workloads (median; all page sets)\n")
        print(summary)
        print("\n### Rewriter workloads per page set (median)\n")
        print(per_page)
        print()
    rewriter_adv = {g: r for g, r in groups.items() if g.startswith("rewriter_adversarial/")}
    if rewriter_adv:
        print("### Rewriter on adversarial inputs (median, htrewrite, 64 KiB chunks)\n")
        print(rewriter_adversarial_table(rewriter_adv))
        print()
    if "throughput" in groups:
        print("### Throughput (median; htrewrite raw tokenization vs lol_html pass-through)\n")
        print(throughput_table(groups["throughput"]))
        print()
    if "adversarial" in groups:
        print("### Adversarial inputs (median, htrewrite, 64 KiB chunks)\n")
        print(adversarial_table(groups["adversarial"]))


if __name__ == "__main__":
    main()
