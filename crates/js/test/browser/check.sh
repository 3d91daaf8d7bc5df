#!/usr/bin/env bash
# The browser check: headless Chromium loads test/browser/index.html over
# HTTP (ES modules need it), which imports the package, fetches
# examples/sample.html, rewrites it with transform() and writes the result
# into the page; --dump-dom prints it, and it must equal what Node makes of
# the same page with the same handlers. Needs crates/js/pkg (build.sh).
# Without chromium: a SKIP line, exit 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: browser check (no chromium)"
  exit 0
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
  sleep 0.1
done
dom=$(mktemp)
timeout 90 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=20000 \
  --dump-dom "http://127.0.0.1:$port/crates/js/test/browser/index.html" >"$dom" 2>/dev/null || true
expected=$(mktemp)
(cd "$here" && node --input-type=module -e "
  import { readFileSync } from 'node:fs';
  import { init, HTMLRewriter } from '../../index.js';
  import { PAGE, configure } from './rewrite.js';
  await init();
  const page = readFileSync('$root' + PAGE);
  process.stdout.write(await configure(new HTMLRewriter()).transform(new Response(page)).text());
") >"$expected"
python3 - "$dom" "$expected" <<'PY'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
expected = open(sys.argv[2], encoding="utf-8").read()
m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
if not m:
    sys.exit(f"FAIL: no result in the dumped DOM ({len(dom)} bytes)")
got = html.unescape(m.group(1))
if got.startswith("ERROR") or got == "pending":
    sys.exit(f"FAIL: the page says: {got[:500]}")
if got != expected:
    at = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
    sys.exit(f"FAIL: browser output differs from Node's at character {at}: {got[at:at+80]!r} vs {expected[at:at+80]!r}")
assert '<script src="/injected.js"></script>' in got
print(f"ok: headless Chromium rewrote examples/sample.html with transform(): {len(got)} characters, equal to Node's output")
PY
