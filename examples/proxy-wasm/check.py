#!/usr/bin/env python3
"""Runs the proxy-wasm filter (examples/proxy-wasm, built for wasm32-wasip1) in host.py, a
proxy-wasm host on wasmtime, and checks it against the native `htrewrite` command.

usage: check.py FILTER_WASM NATIVE_HTREWRITE

The configuration is the CLI's example rules (crates/cli/examples/rules.toml) with an
`inject-head` key in front; the native side runs `htrewrite --rules` on the same file, so both
apply the same rules and head injection. Checks:
- the sample page (examples/sample.html) cut at every chunk size from 1 byte to whole: the
  body equals the CLI's output, Content-Length is gone, a strong ETag weakened, other headers
  kept; once more with `charset=utf-8` in Content-Type against `htrewrite --encoding utf-8`;
- corpus pages ($HTREWRITE_CORPUS, else tests/data/corpus): CORPUS_PAGES (default 5) pages of
  at most 40,000 bytes spread over the sizes, at chunk sizes 1, 7, 4096 and whole; and the
  largest page at 4096, 65536 and whole only (1 and 7 bytes would take minutes through the
  Python host: about 0.13 ms per callback);
- a non-HTML response (application/json) and a gzip-encoded HTML one pass untouched, headers
  and body; a HEAD gets the headers its GET would;
- a rule the library refuses mid-page is logged through proxy_log and the rest of the body
  passes through unchanged;
- an empty configuration is a byte-identical pass-through (headers too);
- bad configurations (an invalid selector, not UTF-8) fail proxy_on_configure with a logged
  error naming the line.
Prints PASS/FAIL per check and a closing "N passed, N failed" line; exit status 1 on failure.
"""
import os
import subprocess
import sys
import tempfile
import time

import wasmtime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host import Host  # noqa: E402

INJECT = '<script src="/rum.js" async></script>'
GET = [(":method", b"GET"), (":path", b"/"), (":authority", b"example.com")]
MAX_CORPUS_PAGE = 40_000


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, name, detail=""):
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}{': ' + detail if detail else ''}")
        return ok


def html_headers(length, content_type=b"text/html"):
    return [
        (":status", b"200"),
        ("content-type", content_type),
        ("content-length", str(length).encode()),
        ("etag", b'"v1"'),
        ("x-upstream", b"kept"),
    ]


def corpus_pages(root):
    pages = sorted(
        (os.path.getsize(os.path.join(d, f)), os.path.join(d, f))
        for d, _, fs in os.walk(root)
        for f in fs
        if f.endswith((".html", ".htm"))
    )
    small = [p for size, p in pages if size <= MAX_CORPUS_PAGE]
    n = min(int(os.environ.get("CORPUS_PAGES", "5")), len(small))
    spread = [small[(len(small) - 1) * i // max(n - 1, 1)] for i in range(n)] if n else []
    largest = pages[-1][1] if pages and pages[-1][1] not in spread else None
    return spread, largest


def main():
    wasm, native = sys.argv[1], sys.argv[2]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    checks = Checks()
    started = time.time()
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, wasm)
    print(f"compiled {wasm} ({os.path.getsize(wasm):,} bytes) in {time.time() - started:.1f} s")

    with open(os.path.join(repo, "crates/cli/examples/rules.toml"), "rb") as f:
        rules = f.read()
    config = b'inject-head = "' + INJECT.replace('"', '\\"').encode() + b'"\n' + rules
    tmp = tempfile.mkdtemp()
    config_path = os.path.join(tmp, "config.toml")
    with open(config_path, "wb") as f:
        f.write(config)

    def native_output(page, *flags):
        return subprocess.run([native, "--rules", config_path, *flags, page], check=True, capture_output=True).stdout

    host = Host(module, engine)
    checks.check(host.configure(config), "proxy_on_configure accepts the rules with inject-head")
    checks.check(
        any(level == "info" and "configured: 7 rules" in m for level, m in host.logs), "the configuration is logged"
    )

    def compare(name, page, sizes, content_type=b"text/html", flags=()):
        with open(page, "rb") as f:
            body = f.read()
        want = native_output(page, *flags)
        bad = []
        t = time.time()
        for size in sizes:
            headers, got = host.exchange(GET, html_headers(len(body), content_type), body, size)
            names = [n for n, _ in headers]
            if got != want:
                bad.append(f"{size}: body differs ({len(got)} vs {len(want)} bytes)")
            elif "content-length" in names or ("etag", b'W/"v1"') not in headers or ("x-upstream", b"kept") not in headers:
                bad.append(f"{size}: headers {headers}")
        shown = ", ".join(map(str, sizes[:4])) + (", …" if len(sizes) > 4 else "")
        label = f"{name}: {len(sizes)} chunk sizes ({shown}), {time.time() - t:.1f} s"
        checks.check(not bad, label, "; ".join(bad[:5]))
        return want

    sample = os.path.join(repo, "examples/sample.html")
    sample_size = os.path.getsize(sample)
    t = time.time()
    want = compare("sample.html = htrewrite --rules, every chunk size 1..whole", sample, list(range(1, sample_size + 1)))
    checks.check(INJECT.encode() + b"</head>" in want, "the injection lands at the end of <head>")
    compare(
        "sample.html with charset=utf-8 = htrewrite --encoding utf-8",
        sample,
        [1, 7, 4096, sample_size],
        b"text/html; charset=utf-8",
        ("--encoding", "utf-8"),
    )

    corpus = os.environ.get("HTREWRITE_CORPUS") or os.path.join(repo, "tests/data/corpus")
    spread, largest = corpus_pages(corpus)
    for page in spread:
        compare(os.path.relpath(page, corpus), page, [1, 7, 4096, os.path.getsize(page)])
    if largest:
        compare(os.path.relpath(largest, corpus), largest, [4096, 65536, os.path.getsize(largest)])
    print(f"  (corpus: {corpus})")

    # Left alone: not HTML, compressed; HEAD gets the GET's headers.
    json_body = b'{"html": "<head></head>", "n": 1}'
    json_headers = [(":status", b"200"), ("content-type", b"application/json"), ("content-length", str(len(json_body)).encode())]
    for size in (1, len(json_body)):
        headers, got = host.exchange(GET, json_headers, json_body, size)
        checks.check(got == json_body and headers == json_headers, f"application/json passes untouched (chunks of {size})")
    gzip_headers = html_headers(20) + [("content-encoding", b"gzip")]
    gzip_body = b"\x1f\x8b\x08\x00<head></head>\x00\x00\x00\x00"
    headers, got = host.exchange(GET, gzip_headers, gzip_body, 5)
    checks.check(got == gzip_body and headers == gzip_headers, "gzip-encoded text/html passes untouched")
    head = [(":method", b"HEAD"), (":path", b"/")]
    headers, got = host.exchange(head, html_headers(1000), b"", 1)
    checks.check(
        got == b"" and "content-length" not in [n for n, _ in headers], "HEAD: the headers a GET would get, no body"
    )

    # A refused edit: logged, the rest passes through unchanged.
    failing = Host(module, engine)
    failing.configure(
        b'version = 1\n[[rule]]\nselector = "p"\naction = "set-attr"\nname = "class"\nvalue = "x"\n'
        b'[[rule]]\nselector = "script"\naction = "append-text"\nvalue = "</script>"\n'
    )
    page = b"<p>a</p><script>s</script><p>b</p>"
    bad = []
    for size in range(1, len(page) + 1):
        failing.logs.clear()
        _, got = failing.exchange(GET, html_headers(len(page)), page, size)
        errors = [m for level, m in failing.logs if level == "error"]
        if got != b'<p class="x">a</p><script>s</script><p>b</p>' or len(errors) != 1 or "rewriting failed" not in errors[0]:
            bad.append(f"{size}: {got!r} {errors}")
    checks.check(not bad, "a refused edit is logged once, the rest passes through (every chunk size)", "; ".join(bad[:3]))

    # An empty configuration: byte-identical pass-through.
    empty = Host(module, engine)
    checks.check(empty.configure(b""), "proxy_on_configure accepts an empty configuration")
    with open(sample, "rb") as f:
        body = f.read()
    ok = True
    for size in (1, 7, sample_size):
        headers, got = empty.exchange(GET, html_headers(len(body)), body, size)
        ok &= got == body and headers == html_headers(len(body))
    checks.check(ok, "an empty configuration passes HTML through byte for byte, headers too")

    # Bad configurations fail proxy_on_configure with a logged, typed error.
    for name, bad_config, expected in [
        ("an invalid selector", b'version = 1\n\n[[rule]]\nselector = "p["\naction = "remove"\n', "line 4, column 12: invalid selector"),
        ("an unknown action", b'version = 1\n[[rule]]\nselector = "p"\naction = "explode"\n', "line 4, column 10: unknown action"),
        ("a configuration that is not UTF-8", b"version = 1\n\xff\n", "plugin configuration: not UTF-8"),
    ]:
        h = Host(module, engine)
        accepted = h.configure(bad_config)
        errors = [m for level, m in h.logs if level == "error"]
        checks.check(
            not accepted and any(expected in m for m in errors),
            f"{name} fails proxy_on_configure with a logged error",
            f"returned {accepted}, logs {h.logs}",
        )

    print(f"proxy-wasm filter under host.py (wasmtime): {time.time() - started:.1f} s")
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
