#!/usr/bin/env bash
# Loopback check of the pingora example (issue 21), as examples/e2e.sh checks the hyper proxy:
#   - an upstream (python3 -m http.server) serves the vendored corpus pages;
#   - the pingora proxy runs twice: with --inject-head (a script at the end of <head>), and with
#     the CLI's example rules file (crates/cli/examples/rules.toml);
#   - curl through it: every page has the script once and is otherwise the upstream's bytes;
#     with the rules file every page equals the htrewrite CLI's output for the same rules, byte
#     for byte; MANIFEST.tsv (not HTML) and a 404 pass untouched; a HEAD of a page has the GET's
#     fixed headers (no Content-Length) and no body; a rewritten page has no Content-Length.
# Needs cmake (pingora's zlib; .ci/run installs Debian's package when missing), curl, python3.
# Usage: examples/pingora/check.sh [--clippy]
#   --clippy: the proxy is built through clippy-driver with warnings denied, so the build is also
#     the lint (`cargo clippy --all-targets -- -D warnings` on this one-binary crate), one pass over
#     pingora and its dependencies instead of a check and a build (.ci/run's pingora step).
#   env: CARGO_TARGET_DIR; PINGORA_PROFILE=dev|release; HTREWRITE_CLI, a built htrewrite CLI to
#     compare with (default: the CLI built here with the same profile).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${CARGO_TARGET_DIR:=target}"
export CARGO_TARGET_DIR
profile=${PINGORA_PROFILE:-dev}
case ${1:-} in
  "" | --clippy) ;;
  *) echo "pingora check: unknown argument '$1' (usage: examples/pingora/check.sh [--clippy])" >&2; exit 2 ;;
esac
for tool in cmake curl python3; do
  command -v "$tool" >/dev/null || { echo "pingora check: $tool is required" >&2; exit 1; }
done
build=(cargo build --quiet --locked --profile "$profile" --manifest-path examples/pingora/Cargo.toml)
if [ "${1:-}" = --clippy ]; then
  # Cargo runs the wrapper for workspace members only (this crate), as `cargo clippy` does;
  # clippy-driver stands in for rustc (clippy's README, "Using clippy-driver") and lints as it
  # compiles. RUSTFLAGS reaches every crate, but dependencies from crates.io cap their lints
  # (--cap-lints allow), and htrewrite's crates are lint-clean.
  RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver" RUSTFLAGS="-D warnings" "${build[@]}"
else
  "${build[@]}"
fi
case $profile in dev | test) dir=debug ;; *) dir=$profile ;; esac
proxy="$CARGO_TARGET_DIR/$dir/htrewrite-pingora"
if [ -n "${HTREWRITE_CLI:-}" ]; then
  cli=$HTREWRITE_CLI
else
  cargo build --quiet --locked --profile "$profile" -p htrewrite-cli
  cli="$CARGO_TARGET_DIR/$dir/htrewrite"
fi

# shellcheck source=examples/loopback.sh
source examples/loopback.sh
# The proxies stop on SIGINT (pingora's fast shutdown); loopback.sh's SIGTERM would start its
# graceful one, which keeps each process (and any pipe on its output) for five minutes.
proxies=()
trap 'for p in "${proxies[@]}"; do kill -INT "$p" 2>/dev/null || true; done; cleanup' EXIT

# start_proxy PORT ARGS...: the proxy on PORT, ready when it answers.
start_proxy() {
  local port=$1
  shift
  "$proxy" --listen "127.0.0.1:$port" --upstream "127.0.0.1:$up_port" "$@" 2>>"$work/proxy.log" &
  proxies+=($!)
  for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/MANIFEST.tsv" && return 0; sleep 0.1; done
  echo "pingora check: the proxy did not start"; cat "$work/proxy.log"; return 1
}

fail=0
script='<script>document.title="htrewrite-pingora"</script>'
inject_port=$(free_port)
rules_port=$(free_port)
start_proxy "$inject_port" --inject-head "$script"
start_proxy "$rules_port" --rules crates/cli/examples/rules.toml

pages=0
while IFS=$'\t' read -r path _; do
  [ "$path" = path ] && continue
  case $path in *.html) ;; *) continue ;; esac
  pages=$((pages + 1))
  curl -fs "http://127.0.0.1:$up_port/$path" >"$work/up.html"
  curl -fs -D "$work/px.head" "http://127.0.0.1:$inject_port/$path" >"$work/px.html"
  n=$(grep -oF "$script" "$work/px.html" | wc -l)
  if [ "$n" -ne 1 ]; then echo "FAIL: $path: the script $n times"; fail=1; fi
  if ! python3 - "$work/px.html" "$work/up.html" "$script" <<'EOF'; then
import sys
px, up, script = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), sys.argv[3].encode()
sys.exit(0 if px.replace(script, b'', 1) == up else 1)
EOF
    echo "FAIL: $path: other bytes than the upstream's besides the script"; fail=1
  fi
  if grep -qi '^content-length:' "$work/px.head"; then echo "FAIL: $path: Content-Length on a rewritten page"; fail=1; fi
  curl -fs "http://127.0.0.1:$rules_port/$path" >"$work/rules.html"
  "$cli" --rules crates/cli/examples/rules.toml "$work/up.html" >"$work/cli.html"
  if ! cmp -s "$work/rules.html" "$work/cli.html"; then echo "FAIL: $path: rules through pingora differ from the CLI's"; fail=1; fi
done <tests/data/corpus/MANIFEST.tsv
echo "pages: $pages through pingora (injection, rules file)"
[ "$pages" -gt 0 ] || { echo "FAIL: no pages"; fail=1; }

curl -fs "http://127.0.0.1:$inject_port/MANIFEST.tsv" | cmp -s - tests/data/corpus/MANIFEST.tsv ||
  { echo "FAIL: MANIFEST.tsv (text/tab-separated-values) changed"; fail=1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$inject_port/no-such-page.html")
[ "$code" = 404 ] || { echo "FAIL: a missing page gave $code"; fail=1; }
first=$(awk -F'\t' 'NR > 1 && $1 ~ /\.html$/ { print $1; exit }' tests/data/corpus/MANIFEST.tsv)
curl -fsI "http://127.0.0.1:$inject_port/$first" >"$work/head.txt"
if grep -qi '^content-length:' "$work/head.txt"; then echo "FAIL: HEAD keeps Content-Length"; fail=1; fi
grep -qi '^content-type: text/html' "$work/head.txt" || { echo "FAIL: HEAD lost Content-Type"; fail=1; }

if [ "$fail" -ne 0 ]; then
  echo "pingora check: FAILED"; tail -20 "$work/proxy.log"; exit 1
fi
echo "pingora check: ok"
