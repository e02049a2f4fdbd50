#!/usr/bin/env bash
# Runs the playground's Chromium test (web/test/e2e.mjs) against a real
# `croql serve` on a free loopback port: the page as users get it at
# /playground. Needs web/build.sh to have run. Screenshots go to
# web/test-results/serve/.
#
#   web/test/e2e-serve.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

tmp="$(mktemp -d)"
serve_pid=""
cleanup() {
	if [ -n "$serve_pid" ]; then
		kill "$serve_pid" 2>/dev/null || true
		wait "$serve_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/croql" ./cmd/croql
"$tmp/croql" serve --token "playground-test" --listen 127.0.0.1:0 2>"$tmp/serve.log" &
serve_pid=$!
url=""
for _ in $(seq 1 120); do
	url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.log" | head -n1 || true)"
	[ -n "$url" ] && break
	kill -0 "$serve_pid" 2>/dev/null || break
	sleep 0.5
done
if [ -z "$url" ]; then
	echo "croql serve did not start:"
	cat "$tmp/serve.log"
	exit 1
fi
echo "croql serve at $url"
node web/test/e2e.mjs "$url/playground/" web/test-results/serve
