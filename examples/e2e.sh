#!/usr/bin/env bash
# End-to-end check of the reverse proxy example on loopback (issue 7, proofs 1, 3 and 4):
#   - an upstream (python3 -m http.server) serves the vendored corpus pages;
#   - the proxy (release build) injects a script at the end of <head>;
#   - curl: the injection is present, every other byte equals the upstream's, gzip works,
#     HEAD gets the rewritten GET's headers and 404 passes untouched;
#   - an upstream that stalls mid-body: curl gets the rewritten part, then a truncated response
#     (exit 18) after the proxy's --upstream-timeout;
#   - fragments (issue 19): a page with 20 elements, each replaced (--fragment SELECTOR=URL, 20 times)
#     by a fragment the upstream sends after 100 ms: all 20 in order, the page in well under 2 s
#     (fetched at once, not one after another) and the bytes before the first fragment at once;
#     the figures (curl's time_starttransfer and time_total, the first body bytes) are printed;
#   - a headless Chromium (Debian's package; .ci/run installs it when missing) loads a page
#     through the proxy and the injected script has set document.title (--dump-dom);
#     without chromium, a visible SKIP line;
#   - a bounded load test (examples/examples/load.rs: fixed requests, connections, seconds) on the
#     upstream alone and through the proxy: errors, throughput, proxy RSS before and after.
# Usage: examples/e2e.sh
#   env: REQUESTS=2000 CONNECTIONS=8 LOAD_SECONDS=20 (the load test);
#        E2E_PROFILE=release (the cargo profile of the proxy and load binaries; CI uses `test`,
#        which `cargo test` has built already).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CARGO_TARGET_DIR:=target}"
REQUESTS=${REQUESTS:-2000} CONNECTIONS=${CONNECTIONS:-8} SECONDS_LIMIT=${LOAD_SECONDS:-20}
profile=${E2E_PROFILE:-release}
for tool in curl python3; do
  command -v "$tool" >/dev/null || { echo "e2e: $tool is required" >&2; exit 1; }
done
# --workspace: the same feature set as `cargo test --workspace`, so its binaries are reused.
cargo build --quiet --locked --profile "$profile" --workspace --example proxy --example load
case $profile in dev | test) dir=debug ;; *) dir=$profile ;; esac
bin="$CARGO_TARGET_DIR/$dir/examples"
echo "e2e: proxy and load from $bin (profile $profile)"

# shellcheck source=examples/loopback.sh
source examples/loopback.sh
px_port=$(free_port)
script='<script>document.title="htrewrite-injected"</script>'
"$bin/proxy" --listen "127.0.0.1:$px_port" --upstream "http://127.0.0.1:$up_port" --inject-head "$script" \
  --public-url "http://127.0.0.1:$px_port" 2>"$work/proxy.log" &
proxy_pid=$!
pids+=($proxy_pid)
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$px_port/MANIFEST.tsv" && break; sleep 0.1; done

fail=0
check() { if "$@"; then echo "ok: ${desc}"; else echo "FAIL: ${desc}"; fail=1; fi; }
pages=0
while IFS=$'\t' read -r path _; do
  [ "$path" = path ] && continue
  curl -fs "http://127.0.0.1:$up_port/$path" >"$work/up.html"
  curl -fs "http://127.0.0.1:$px_port/$path" >"$work/px.html"
  if ! grep -qF "$script" "$work/px.html"; then echo "FAIL: no injection in $path"; fail=1; continue; fi
  python3 - "$work/up.html" "$work/px.html" "$script" <<'PY' || { echo "FAIL: $path: other bytes changed"; fail=1; }
import sys
up, px, s = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), sys.argv[3].encode()
i = px.index(s)
sys.exit(0 if px[:i] + px[i + len(s):] == up else 1)
PY
  pages=$((pages + 1))
done <tests/data/corpus/MANIFEST.tsv
echo "curl: $pages pages through the proxy"
desc="gzip to the client (curl --compressed) decodes to the injected page"
check bash -c "curl -fs --compressed -H 'Accept-Encoding: gzip' 'http://127.0.0.1:$px_port/readability/wikipedia.html' | grep -qF '$script'"
desc="HEAD has the rewritten GET's headers (no upstream Content-Length)"
check bash -c "curl -fsI 'http://127.0.0.1:$px_port/readability/wikipedia.html' | grep -qi '^content-type: text/html' && ! curl -fsI 'http://127.0.0.1:$px_port/readability/wikipedia.html' | grep -qi '^content-length:'"
desc="404 passes through"
check bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$px_port/missing')\" = 404 ]"

# An upstream that sends its head and part of a page, then stalls (until the proxy hangs up).
stall_port=$(free_port)
stall_px_port=$(free_port)
python3 - "$stall_port" "$work/stall.ready" <<'PY' >/dev/null 2>&1 &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    c.recv(65536)
    c.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: 1000\r\n\r\n"
              b"<html><head></head><body>first part")
    while c.recv(65536):
        pass
    c.close()
PY
pids+=($!)
"$bin/proxy" --listen "127.0.0.1:$stall_px_port" --upstream "http://127.0.0.1:$stall_port" --inject-head "$script" \
  --upstream-timeout 0.5 2>>"$work/proxy.log" &
pids+=($!)
for _ in $(seq 100); do
  [ -e "$work/stall.ready" ] && (exec 3<>"/dev/tcp/127.0.0.1/$stall_px_port") 2>/dev/null && break
  sleep 0.1
done
stall_rc=0
curl -s --max-time 10 "http://127.0.0.1:$stall_px_port/" >"$work/stall.html" || stall_rc=$?
desc="upstream stalls mid-body (--upstream-timeout 0.5): the rewritten part, then a truncated response (curl exit $stall_rc, want 18)"
check bash -c "[ $stall_rc = 18 ] && grep -qF '$script</head><body>first part' '$work/stall.html'"

# Fragments (issue 19): an upstream whose page has 20 elements, each replaced by a fragment of the
# same upstream that answers after 100 ms.
frag_port=$(free_port)
frag_px_port=$(free_port)
python3 - "$frag_port" "$work/frag.ready" <<'PY' >/dev/null 2>&1 &
import sys, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith('/frag/'):
            time.sleep(0.1)
            body = '<b>fragment %s</b>' % self.path[len('/frag/'):]
        else:
            body = ('<!DOCTYPE html><html><head><title>fragments</title></head><body><h1>before</h1>'
                    + ''.join('<div id=f%d>fallback %d</div>' % (i, i) for i in range(20)) + '<p>after</p></body></html>')
        body = body.encode()
        self.send_response(200)
        self.send_header('content-type', 'text/html; charset=utf-8')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 128  # the listen backlog: 20 connections arrive at once
server = ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Handler)
open(sys.argv[2], 'w').close()
server.serve_forever()
PY
pids+=($!)
fragments=()
for i in $(seq 0 19); do fragments+=(--fragment "#f$i=http://127.0.0.1:$frag_port/frag/$i"); done
"$bin/proxy" --listen "127.0.0.1:$frag_px_port" --upstream "http://127.0.0.1:$frag_port" "${fragments[@]}" \
  2>>"$work/proxy.log" &
pids+=($!)
for _ in $(seq 100); do
  [ -e "$work/frag.ready" ] && curl -fs -o /dev/null "http://127.0.0.1:$frag_px_port/frag/0" && break
  sleep 0.1
done
curl -fs -o /dev/null "http://127.0.0.1:$frag_px_port/page.html" || true # warm the connection pools
read -r frag_ttfb frag_total < <(curl -fs -o "$work/frag.html" -w '%{time_starttransfer} %{time_total}\n' \
  "http://127.0.0.1:$frag_px_port/page.html" || echo "nan nan")
# When the first body bytes come (curl's time_starttransfer is the response head's).
read -r frag_first frag_body_total < <(python3 - "$frag_px_port" <<'PY' || echo "nan nan"
import http.client, sys, time
conn = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]))
start = time.monotonic()
conn.request('GET', '/page.html')
res = conn.getresponse()
data, first = b'', None
while chunk := res.read1(65536):
    data += chunk
    if first is None and b'<h1>before</h1>' in data:
        first = time.monotonic() - start
print('%.3f %.3f' % (first if first is not None else float('nan'), time.monotonic() - start))
PY
)
echo "fragments: 20 x 100 ms via --fragment: curl time_starttransfer ${frag_ttfb} s, time_total ${frag_total} s;" \
  "first body bytes (<h1>before</h1>) at ${frag_first} s of ${frag_body_total} s"
desc="20 fragments of 100 ms each replace their elements, in order (the page in ${frag_total} s, well under 2 s)"
check python3 - "$work/frag.html" "$frag_total" <<'PY'
import re, sys
html, total = open(sys.argv[1]).read(), float(sys.argv[2])
want = ''.join('<b>fragment %d</b>' % i for i in range(20))
sys.exit(0 if want in html and 'fallback' not in html and '<p>after</p>' in html and total < 1.0 else 1)
PY
desc="the bytes before the first fragment leave at once (at ${frag_first} s, before any fragment's 100 ms)"
check python3 -c "import sys; sys.exit(0 if float('$frag_first') < 0.1 else 1)"

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: headless browser check (no chromium; .ci/run installs Debian's when it can)"
else
  desc="headless Chromium: the injected script ran (document.title)"
  check bash -c "timeout 90 '$browser' --headless --no-sandbox --disable-gpu --dump-dom 'http://127.0.0.1:$px_port/html5ever-bench/lipsum.html' 2>/dev/null | grep -qF '<title>htrewrite-injected</title>'"
fi

rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$proxy_pid/status"; }
echo "load: $REQUESTS requests, $CONNECTIONS connections, at most $SECONDS_LIMIT s; page readability/wikipedia.html"
echo "proxy RSS before: $(rss)"
echo -n "upstream alone: "
"$bin/load" "http://127.0.0.1:$up_port/readability/wikipedia.html" "$REQUESTS" "$CONNECTIONS" "$SECONDS_LIMIT" || fail=1
echo -n "through the proxy: "
"$bin/load" "http://127.0.0.1:$px_port/readability/wikipedia.html" "$REQUESTS" "$CONNECTIONS" "$SECONDS_LIMIT" || fail=1
echo "proxy RSS after: $(rss)"
if [ $fail = 0 ]; then echo "e2e: all checks passed"; else echo "e2e: FAILED"; exit 1; fi
