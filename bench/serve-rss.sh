#!/bin/sh
# bench/serve-rss.sh [STRINGS]: peak RSS of `croql serve --data` against
# `croql load` on the same generated project (100,000 strings by default),
# both into embedded SQLite. croql serve's peak is read from
# /proc/PID/status (VmHWM) once it listens, that is once the data is
# loaded and served, without the resident snapshot (--resident-max-bytes
# 0), then with it once the snapshot is built; croql load's from
# /usr/bin/time -f %M.
set -eu
n="${1:-100000}"
top="$(cd "$(dirname "$0")/.." && pwd)"
. "$top/bench/serve-lib.sh"
dir="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
pid=""
go build -C "$top" -o "$dir/croql" ./cmd/croql
"$dir/croql" demo --strings "$n" --seed 1 --format ndjson > "$dir/p.ndjson"
echo "project: $n strings, $(du -m "$dir/p.ndjson" | cut -f1) MB of NDJSON"

/usr/bin/time -f %M -o "$dir/load.kb" "$dir/croql" load --dsn "$dir/p.db" "$dir/p.ndjson" 2>/dev/null
load_kb="$(cat "$dir/load.kb")"

# serve_peak PATTERN ARGS...: croql serve's peak RSS in kB once its log
# has PATTERN: once it listens, or, with the resident snapshot, once the
# snapshot is built (its status line).
serve_peak() {
	wait_for="$1"; shift
	rm -rf "$dir/serve"
	"$dir/croql" serve --data "$dir/p.ndjson" --dir "$dir/serve" --token t --listen 127.0.0.1:0 "$@" 2> "$dir/serve.log" &
	pid=$!
	wait_serve "$dir/serve.log" "$pid" "$wait_for"
	awk '/^VmHWM/ {print $2}' "/proc/$pid/status"
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}
serve_kb="$(serve_peak 'api/v2/projects' --resident-max-bytes 0)"
resident_kb="$(serve_peak 'resident in memory')"
grep 'resident in memory' "$dir/serve.log"

echo "croql load peak RSS:  $((load_kb / 1024)) MB"
echo "croql serve peak RSS: $((serve_kb / 1024)) MB (once listening, --resident-max-bytes 0)"
echo "croql serve peak RSS: $((resident_kb / 1024)) MB (once the resident snapshot is built, the default)"
awk -v s="$serve_kb" -v l="$load_kb" 'BEGIN { printf "serve / load: %.2fx\n", s / l }'
