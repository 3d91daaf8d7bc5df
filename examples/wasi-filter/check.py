#!/usr/bin/env python3
"""Runs htrewrite built for wasm32-wasip1 (examples/wasi-filter) under wasmtime
(the `wasmtime` package from PyPI) and checks that its output equals the
native CLI's for the same rule, byte for byte, on examples/sample.html and
on pages of $HTREWRITE_CORPUS (the first PAGES of them, sorted; default 8).

usage: check.py WASM_MODULE NATIVE_HTREWRITE
Exit status 0 when every page agrees, 1 otherwise.
"""
import os
import subprocess
import sys
import tempfile

import wasmtime

RULES = [("img", "loading", "lazy"), ("a[href]", "rel", "noopener"), ("p:nth-child(2n) > b", "class", "x")]


def run_wasm(engine, module, args, page, out_path):
    config = wasmtime.WasiConfig()
    config.argv = ["wasi-filter", *args]
    config.stdin_file = page
    config.stdout_file = out_path
    config.inherit_stderr()
    store = wasmtime.Store(engine)
    store.set_wasi(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    instance = linker.instantiate(store, module)
    try:
        instance.exports(store)["_start"](store)
    except wasmtime.ExitTrap as e:
        if e.code != 0:
            raise RuntimeError(f"wasi-filter exited with {e.code}") from e
    with open(out_path, "rb") as f:
        return f.read()


def main():
    wasm, native = sys.argv[1], sys.argv[2]
    pages = ["examples/sample.html"]
    corpus = os.environ.get("HTREWRITE_CORPUS")
    if corpus and os.path.isdir(corpus):
        found = sorted(
            os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if f.endswith((".html", ".htm"))
        )
        pages += found[: int(os.environ.get("PAGES", "8"))]
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, wasm)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "out.html")
        for page in pages:
            for rule in RULES:
                got = run_wasm(engine, module, list(rule), page, out_path)
                want = subprocess.run(
                    [native, "--set-attr", *rule, page], check=True, capture_output=True
                ).stdout
                if got != want:
                    failures += 1
                    print(f"DIFFERS: {page} with --set-attr {' '.join(rule)} ({len(got)} vs {len(want)} bytes)")
    checks = len(pages) * len(RULES)
    print(f"wasm32-wasip1 under wasmtime: {checks - failures}/{checks} (page, rule) outputs equal to the native CLI's")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
