#!/usr/bin/env bash
# Vitess for croql's tests: a 2-shard keyspace "croql" served by vttestserver
# (vtcombo) on the machine's MariaDB binaries, on loopback.
#
#   .ci/vitess.sh build   build vttestserver, vtcombo and mysqlctl once per
#                         version into $VITESS_CACHE (outside the repository)
#   .ci/vitess.sh start   start the keyspace (builds first when needed) and
#                         wait until vtgate answers; prints the DSN
#   .ci/vitess.sh stop    stop it
#   .ci/vitess.sh dsn     print the DSN (vitess://...)
#
# Environment: VITESS_VERSION (v0.24.4), VITESS_CACHE
# (/var/cache/croql/vitess-$VITESS_VERSION), VITESS_PORT (base port, 33300;
# vtgate's MySQL protocol listens on VITESS_PORT+3), VITESS_DATA (data
# directory, /tmp/croql-vitess), VITESS_MAX_ROWS (vttablet's
# --queryserver-config-max-result-size, the most rows a shard returns to
# a query; 1000000, Vitess's default is 10000: docs/serve.md, "Vitess").
set -euo pipefail

VITESS_VERSION="${VITESS_VERSION:-v0.24.4}"
VITESS_CACHE="${VITESS_CACHE:-/var/cache/croql/vitess-$VITESS_VERSION}"
VITESS_PORT="${VITESS_PORT:-33300}"
VITESS_DATA="${VITESS_DATA:-/tmp/croql-vitess}"
VITESS_MAX_ROWS="${VITESS_MAX_ROWS:-1000000}"
VITESS_SCRATCH=8 # scratch keyspaces, as store/vitess.go expects
mysql_port=$((VITESS_PORT + 3))

build() {
	if [ -x "$VITESS_CACHE/bin/vttestserver" ] && [ -x "$VITESS_CACHE/bin/vtcombo" ] &&
		[ -x "$VITESS_CACHE/bin/mysqlctl" ] && [ -d "$VITESS_CACHE/config" ]; then
		echo "vitess $VITESS_VERSION: cached in $VITESS_CACHE"
		return 0
	fi
	echo "vitess $VITESS_VERSION: building into $VITESS_CACHE (a few minutes of CPU)"
	local scratch src
	scratch="$(mktemp -d)"
	# `go install vitess.io/vitess/...@version` is refused (its go.mod has
	# exclude directives): download the module and build inside a copy.
	(cd "$scratch" && go mod init croql-vitess-dl >/dev/null 2>&1 &&
		go mod download -json "vitess.io/vitess@$VITESS_VERSION" >dl.json)
	src="$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' "$scratch/dl.json")"
	[ -d "$src" ] || { echo "vitess: module directory not found"; cat "$scratch/dl.json"; exit 1; }
	cp -r "$src" "$scratch/vitess"
	chmod -R u+w "$scratch/vitess"
	mkdir -p "$VITESS_CACHE.tmp/bin"
	(cd "$scratch/vitess" && nice go build -o "$VITESS_CACHE.tmp/bin/" \
		./go/cmd/vttestserver ./go/cmd/vtcombo ./go/cmd/mysqlctl)
	# The bundled test config is MySQL-only: MariaDB has no super_read_only.
	cp -r "$scratch/vitess/config" "$VITESS_CACHE.tmp/config"
	sed -i '/super-read-only/d' "$VITESS_CACHE.tmp/config/mycnf/test-suite.cnf"
	sed -i '/super_read_only/d' "$VITESS_CACHE.tmp/config/init_db.sql"
	chmod -R a+rX "$VITESS_CACHE.tmp"
	rm -rf "$VITESS_CACHE"
	mv "$VITESS_CACHE.tmp" "$VITESS_CACHE"
	rm -rf "$scratch"
	echo "vitess $VITESS_VERSION: built"
}

dsn() {
	echo "vitess://root@127.0.0.1:$mysql_port/croql"
}

up() {
	mariadb -h 127.0.0.1 -P "$mysql_port" -u root -e 'SELECT 1' >/dev/null 2>&1
}

start() {
	build
	if up; then
		echo "vitess: already up on 127.0.0.1:$mysql_port"
		dsn
		return 0
	fi
	rm -rf "$VITESS_DATA"
	mkdir -p "$VITESS_DATA/vt"
	# utf8mb4 on the server: emoji are refused otherwise. Each keyspace
	# shard is a tablet with its own connection pools to the one mysqld.
	printf '[mysqld]\nbind-address=127.0.0.1\ncharacter_set_server=utf8mb4\ncollation_server=utf8mb4_bin\nmax_connections=4000\n' >"$VITESS_DATA/extra.cnf"
	# The keyspace and its scratch keyspaces (store/vitess.go),
	# 2 shards each.
	local keyspaces=croql shards=2 i ks
	for i in $(seq 1 "$VITESS_SCRATCH"); do keyspaces="$keyspaces,croql_scratch$i"; shards="$shards,2"; done
	# Each keyspace is sharded; its tables get their vindexes from croql's
	# DDL (ALTER VSCHEMA). CREATE DATABASE reads this again.
	for ks in ${keyspaces//,/ }; do
		mkdir -p "$VITESS_DATA/schema/$ks"
		echo '{"sharded": true}' >"$VITESS_DATA/schema/$ks/vschema.json"
	done
	# vttestserver runs $VTROOT/bin/vtcombo and passes it no tablet
	# settings: a VTROOT of the run's own whose vtcombo adds them.
	local vtroot="$VITESS_DATA/vtroot"
	mkdir -p "$vtroot/bin"
	ln -s "$VITESS_CACHE/config" "$vtroot/config"
	ln -s "$VITESS_CACHE/bin/mysqlctl" "$vtroot/bin/mysqlctl"
	printf '#!/bin/sh\nexec %s/bin/vtcombo --queryserver-config-max-result-size %s "$@"\n' \
		"$VITESS_CACHE" "$VITESS_MAX_ROWS" >"$vtroot/bin/vtcombo"
	chmod a+rx "$vtroot/bin/vtcombo"
	chown -R nobody:nogroup "$VITESS_DATA"
	# vttestserver refuses to run as root. It runs in a process group of
	# its own (setsid), with vtcombo and mysqld, which stop kills whole.
	setsid setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env \
		env VTROOT="$vtroot" VTDATAROOT="$VITESS_DATA" HOME="$VITESS_DATA" \
		PATH=/usr/sbin:/usr/bin:/bin \
		"$VITESS_CACHE/bin/vttestserver" \
		--port "$VITESS_PORT" --mysql-bind-host 127.0.0.1 --vtcombo-bind-host 127.0.0.1 \
		--keyspaces "$keyspaces" --num-shards "$shards" \
		--vschema-ddl-authorized-users % \
		--extra-my-cnf "$VITESS_DATA/extra.cnf" \
		--data-dir "$VITESS_DATA/vt" --schema-dir "$VITESS_DATA/schema" \
		>"$VITESS_DATA/vttestserver.log" 2>&1 &
	echo $! >"$VITESS_DATA/pid"
	for _ in $(seq 1 180); do
		if up; then
			# The scratch keyspaces start free: a run creates one.
			for i in $(seq 1 "$VITESS_SCRATCH"); do
				mariadb -h 127.0.0.1 -P "$mysql_port" -u root -e "DROP DATABASE croql_scratch$i"
			done
			echo "vitess: up on 127.0.0.1:$mysql_port (log $VITESS_DATA/vttestserver.log)"
			dsn
			return 0
		fi
		if ! kill -0 "$(cat "$VITESS_DATA/pid")" 2>/dev/null; then
			echo "vitess: vttestserver exited"; tail -n 40 "$VITESS_DATA/vttestserver.log"; return 1
		fi
		sleep 1
	done
	echo "vitess: did not come up in 180 s"; tail -n 40 "$VITESS_DATA/vttestserver.log"; return 1
}

stop() {
	[ -f "$VITESS_DATA/pid" ] || { echo "vitess: not started here"; return 0; }
	local pid
	pid="$(cat "$VITESS_DATA/pid")"
	# vttestserver stops vtcombo and mysqld on SIGTERM; the group is killed
	# too, for children it would leave behind.
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
	fi
	kill -- -"$pid" 2>/dev/null || true
	rm -f "$VITESS_DATA/pid"
	echo "vitess: stopped"
}

case "${1:-}" in
build) build ;;
start) start ;;
stop) stop ;;
dsn) dsn ;;
*) echo "usage: $0 build|start|stop|dsn"; exit 2 ;;
esac
