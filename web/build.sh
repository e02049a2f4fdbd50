#!/usr/bin/env bash
# Builds the croql playground into web/dist: croql compiled to WebAssembly
# (web/wasm), Go's wasm_exec.js, the page, and the CodeMirror bundle made by
# esbuild from the npm packages pinned in package-lock.json. Idempotent;
# needs Go, Node.js and npm. Prints the size of croql.wasm, raw and gzip.
#
#   web/build.sh           build
#   go run ./cmd/croql serve --token dev   then open http://127.0.0.1:8080/playground/
set -euo pipefail

web="$(cd "$(dirname "$0")" && pwd)"
dist="$web/dist"
cd "$web"

# npm ci only when node_modules was not installed from this lock file.
stamp=node_modules/.croql-package-lock.json
if ! cmp -s package-lock.json "$stamp" 2>/dev/null || [ ! -x node_modules/.bin/esbuild ]; then
	npm ci --no-audit --no-fund
	cp package-lock.json "$stamp"
fi

mkdir -p "$dist"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$tmp/croql.wasm" ./wasm
gzip -9 -n -c "$tmp/croql.wasm" >"$tmp/croql.wasm.gz"

wasm_exec="$(go env GOROOT)/lib/wasm/wasm_exec.js"
[ -f "$wasm_exec" ] || wasm_exec="$(go env GOROOT)/misc/wasm/wasm_exec.js" # Go before 1.24
cp "$wasm_exec" "$tmp/wasm_exec.js"

node_modules/.bin/esbuild src/main.js --bundle --format=esm --minify --target=es2020 \
	--log-level=warning --outfile="$tmp/main.js"
cp index.html "$tmp/index.html"
cp src/style.css "$tmp/style.css"
for f in main.js wasm_exec.js style.css index.html; do
	gzip -9 -n -c "$tmp/$f" >"$tmp/$f.gz"
done

# Replace dist's files in one go; the .gz siblings land after the files
# they compress, so the server never pairs a new file with an old .gz.
for f in croql.wasm wasm_exec.js main.js style.css index.html; do
	mv -f "$tmp/$f" "$dist/$f"
	mv -f "$tmp/$f.gz" "$dist/$f.gz"
done

raw=$(wc -c <"$dist/croql.wasm")
gz=$(wc -c <"$dist/croql.wasm.gz")
js=$(wc -c <"$dist/main.js")
jsgz=$(wc -c <"$dist/main.js.gz")
printf 'web/dist: croql.wasm %d bytes (%d gzip -9), main.js %d bytes (%d gzip -9)\n' "$raw" "$gz" "$js" "$jsgz"
