#!/usr/bin/env bash
# Builds the JavaScript package: the wasm32-unknown-unknown module, bound by
# wasm-bindgen (--target web: one ES module for browsers, Node, Deno and
# Workers-like runtimes) into crates/js/pkg/.
#   crates/js/build.sh            # the release module (profile wasm-release: opt-level "s", LTO, stripped)
#   crates/js/build.sh --dev      # a quick unoptimized build for tests
# Needs wasm-bindgen-cli at the version of the wasm-bindgen crate in Cargo.lock:
#   cargo install --no-default-features --bin wasm-bindgen wasm-bindgen-cli --version 0.2.130
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
profile=wasm-release
dir=wasm-release
if [ "${1:-}" = "--dev" ]; then
  profile=dev
  dir=debug
fi
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' "$root/Cargo.lock")
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "wasm-bindgen-cli $want is needed (found: ${have:-none}): cargo install --no-default-features --bin wasm-bindgen wasm-bindgen-cli --version $want" >&2
  exit 1
fi
cargo build --locked --quiet -p htrewrite-js --target wasm32-unknown-unknown --profile "$profile"
wasm-bindgen --target web --weak-refs --remove-name-section --remove-producers-section --out-dir pkg --out-name htrewrite_js \
  "${CARGO_TARGET_DIR:-$root/target}/wasm32-unknown-unknown/$dir/htrewrite_js.wasm"
raw=$(wc -c <pkg/htrewrite_js_bg.wasm)
gz=$(gzip -9 -c pkg/htrewrite_js_bg.wasm | wc -c)
echo "built crates/js/pkg ($profile): htrewrite_js_bg.wasm $raw bytes, $gz gzipped (gzip -9)"
