# Sourced by the instruction and cache scripts (benches/instructions.sh,
# benches/rewriter-instructions.sh, benches/rewriter-cache.sh): their
# default inputs, the three lol-html bench pages, and the callgrind set-up.
#
#   default_pages SCRIPT: appends to the array `files` the first
#   cloudflare.com.html, ecma402-spec.html and html-parsing-spec.html found
#   under $HTREWRITE_CORPUS (else tests/data/corpus/, relative to the
#   repository root, the scripts' working directory); exits with 2 when none
#   is found. SCRIPT names the script in messages.
default_pages() {
  local script=$1 corpus=${HTREWRITE_CORPUS:-tests/data/corpus} name found
  for name in cloudflare.com.html ecma402-spec.html html-parsing-spec.html; do
    found=$(find "$corpus" -name "$name" -type f 2>/dev/null | sort | head -n 1 || true)
    if [ -n "$found" ]; then files+=("$found"); else echo "$script: $name not found under $corpus" >&2; fi
  done
  [ ${#files[@]} -gt 0 ] || { echo "$script: no input files; pass some or set HTREWRITE_CORPUS" >&2; exit 2; }
}

#   rewrite_bin SCRIPT: checks that valgrind is installed, builds the
#   `rewrite` binary (benches/src/bin/rewrite.rs) with the bench profile and
#   sets `bin` to its path; exits with 1 when either fails.
rewrite_bin() {
  local script=$1
  command -v valgrind >/dev/null || { echo "$script: needs valgrind" >&2; exit 1; }
  cargo build --quiet --profile bench -p htrewrite-benches --bin rewrite
  bin="${CARGO_TARGET_DIR:-target}/release/rewrite"
  [ -x "$bin" ] || { echo "$script: $bin was not built" >&2; exit 1; }
}
