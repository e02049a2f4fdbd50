# Shared by the scripts of bench/scaleout (sourced, not run): throwaway
# PostgreSQL clusters on loopback ports, the croql binaries, and the
# 2,000-string demo project. Needs root (pg_createcluster), the
# postgresql-common tools and Go. Nothing touches the server on 5432.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${SCALEOUT_WORK:-/tmp/croql-scaleout}
strings=${SCALEOUT_STRINGS:-2000}
pgver=${SCALEOUT_PG:-$(ls /usr/lib/postgresql | sort -n | tail -1)}
mkdir -p "$work"

log() { printf '== %s\n' "$*" >&2; }

# build: the croql CLI and seedcheck, into $work.
build() {
	log "building croql and seedcheck"
	(cd "$repo" && nice go build -o "$work/croql" ./cmd/croql)
	(cd "$repo/bench" && nice go build -o "$work/seedcheck" ./scaleout/seedcheck)
}

# demo FILE SEED: the demo project of $strings strings.
demo() {
	"$work/croql" demo --strings "$strings" --seed "$2" --format json >"$1"
}

# dsn PORT [SCHEMA]: the DSN of a cluster's database postgres.
dsn() {
	local d="postgres://postgres@127.0.0.1:$1/postgres?sslmode=disable"
	if [ -n "${2:-}" ]; then d="$d&search_path=$2"; fi
	printf '%s' "$d"
}

# sql PORT STATEMENT...: psql on a cluster, unaligned, quiet.
sql() {
	local port=$1
	shift
	psql -X -q -v ON_ERROR_STOP=1 -At -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"
}

# dropcluster NAME: stops and removes a cluster of this script, if any.
dropcluster() {
	if pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$pgver $1"; then
		pg_dropcluster "$pgver" "$1" --stop >/dev/null
	fi
}

# newcluster NAME PORT [-o setting]...: a fresh cluster, started, trust
# auth on loopback.
newcluster() {
	local name=$1 port=$2
	shift 2
	dropcluster "$name"
	pg_createcluster "$pgver" "$name" -p "$port" --start \
		-o listen_addresses=localhost -o fsync=off "$@" -- --auth=trust >/dev/null
	sql "$port" -c 'SELECT 1' >/dev/null
}

# newstandby NAME PORT PRIMARY_PORT: a streaming hot standby of the
# cluster on PRIMARY_PORT (pg_basebackup -R).
newstandby() {
	local name=$1 port=$2 primary=$3
	dropcluster "$name"
	pg_createcluster "$pgver" "$name" -p "$port" -o listen_addresses=localhost -o hot_standby=on -- --auth=trust >/dev/null
	local data
	data=$(pg_lsclusters -h | awk -v v="$pgver" -v n="$name" '$1==v && $2==n {print $6}')
	rm -rf "${data:?}"/*
	pg_basebackup -h 127.0.0.1 -p "$primary" -U postgres -D "$data" -R -X stream >/dev/null
	chown -R postgres:postgres "$data"
	pg_ctlcluster "$pgver" "$name" start
	sql "$port" -c 'SELECT 1' >/dev/null
}

# caughtup STANDBY_PORT PRIMARY_PORT: waits until the standby replayed
# everything the primary wrote so far.
caughtup() {
	local lsn
	lsn=$(sql "$2" -c 'SELECT pg_current_wal_lsn()')
	for _ in $(seq 300); do
		if [ "$(sql "$1" -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'")" = t ]; then return 0; fi
		sleep 0.2
	done
	echo "the standby on $1 did not catch up with $lsn" >&2
	return 1
}

# freeport: a free loopback TCP port.
freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
