#!/bin/sh
# bench/upload-rss.sh [KEYS] [FLAGS...]: peak RSS of `croql serve` (the
# built-in demo project, embedded SQLite) across one upload of a key-value
# JSON file of KEYS strings (1,300,000 by default: about 30 MB, under the
# 32 MiB per-file quota), sent as a raw body to POST
# /api/v2/projects/1/files. FLAGS go to croql serve (e.g.
# --max-file-strings 2000000). Prints the answer's status, the server's
# peak RSS before and after the upload (VmHWM from /proc/PID/status), and
# the CPU time the server spent on the upload (utime+stime from
# /proc/PID/stat). With UPLOAD=translations the file is uploaded as a
# source file first, then measured as a translation upload into uk.
set -eu
n="${1:-1300000}"
[ $# -gt 0 ] && shift
top="$(cd "$(dirname "$0")/.." && pwd)"
. "$top/bench/serve-lib.sh"
dir="$(mktemp -d)"
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$dir"' EXIT
go build -C "$top" -o "$dir/croql" ./cmd/croql
awk -v n="$n" 'BEGIN { printf "{"; for (i = 0; i < n; i++) printf "%s\"k%07d\":\"t%07d\"", (i ? "," : ""), i, i; print "}" }' > "$dir/big.json"
echo "upload: $n keys, $(wc -c < "$dir/big.json") bytes of JSON"

"$dir/croql" serve --token t --listen 127.0.0.1:0 --dir "$dir/serve" "$@" 2> "$dir/serve.log" &
pid=$!
wait_serve "$dir/serve.log" "$pid"
base="$(sed -n 's|.*\(http://[^ ]*\)/api/v2/projects.*|\1|p' "$dir/serve.log" | head -n 1)"
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$pid/status"; }
upload() { # upload PATH: sends the file to PATH, prints the answer's status
	curl -s -o "$dir/answer.json" -w '%{http_code}' -H 'Authorization: Bearer t' \
		-H 'Crowdin-API-FileName: big.json' --data-binary @"$dir/big.json" "$base$1"
}
path=/api/v2/projects/1/files
if [ "${UPLOAD:-}" = translations ]; then
	echo "source upload first: $(upload "$path")"
	path=/api/v2/projects/1/translations?languageId=uk
	echo 5 > "/proc/$pid/clear_refs" # resets VmHWM to the current RSS
fi
before_kb="$(hwm)"; before_cpu="$(cpu)"
status="$(upload "$path")"
after_kb="$(hwm)"; after_cpu="$(cpu)"
tick="$(getconf CLK_TCK)"
echo "answer: $status $(head -c 300 "$dir/answer.json")"
echo "croql serve peak RSS before the upload: $((before_kb / 1024)) MB"
echo "croql serve peak RSS after the upload:  $((after_kb / 1024)) MB"
awk -v c="$((after_cpu - before_cpu))" -v t="$tick" 'BEGIN { printf "croql serve CPU for the upload: %.1f s\n", c / t }'
