# Sourced by the loopback checks (examples/e2e.sh, examples/pingora/check.sh): a work
# directory and the processes to stop on exit (append their pids to `pids`), `free_port`, and
# an upstream (python3 -m http.server) serving a copy of the vendored corpus on `$up_port`.
# Run from the repository's root.
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
cp -r tests/data/corpus "$work/site"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
up_port=$(free_port)
python3 -m http.server "$up_port" --bind 127.0.0.1 -d "$work/site" >/dev/null 2>&1 &
pids+=($!)
