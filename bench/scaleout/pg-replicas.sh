#!/usr/bin/env bash
# PostgreSQL replicas under croql: a primary, a streaming hot standby
# (pg_basebackup -R) and a logical replica (publication/subscription),
# each a throwaway cluster on a free loopback port, removed at the end.
#
#   sudo bench/scaleout/pg-replicas.sh      # as root; about a minute
#
# 1. croql load of the 2,000-string demo into the primary (and how many of
#    its translations belong to several strings); the seed patterns on the
#    primary and on the standby, ids compared with the evaluator's
#    (seedcheck).
# 2. croql serve --dsn on the standby: the read endpoints, and what an
#    upload (a write) answers there.
# 3. The logical replica: the load's schema copied (pg_dump --schema-only;
#    logical replication carries rows, not DDL), subscribed, the seed
#    patterns on it; then a second load (another project, into a new
#    schema, as croql load never writes into existing tables) on the
#    primary, and the seed patterns on the replica again.
# 4. What a publication FOR ALL TABLES does when croql load runs: the
#    rows it copies into its scratch schema are published too, and the
#    subscriber's apply worker stops on a table it does not have.
source "$(dirname "$0")/lib.sh"

primary=scaleout_primary standby=scaleout_standby logical=scaleout_logical
serve_pid=
cleanup() {
	if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
	for c in $logical $standby $primary; do dropcluster "$c"; done
}
trap cleanup EXIT

build
demo "$work/demo1.json" 1
demo "$work/demo2.json" 2

pp=$(freeport) sp=$(freeport) lp=$(freeport)
log "primary on $pp (wal_level=logical)"
newcluster $primary "$pp" -o wal_level=logical -o max_wal_senders=10 -o max_replication_slots=10
log "hot standby on $sp"
newstandby $standby "$sp" "$pp"
log "logical replica on $lp"
newcluster $logical "$lp"

log "croql load into the primary, schema mirror"
"$work/croql" load --dsn "$(dsn "$pp")" --schema mirror "$work/demo1.json"
caughtup "$sp" "$pp"
log "translations that belong to more than one string"
sql "$pp" -c "SELECT count(*) FILTER (WHERE n > 1) || ' of ' || count(*) || ' translations ('
	|| round(100.0 * count(*) FILTER (WHERE n > 1) / count(*), 1) || '%) belong to more than one string, up to ' || max(n)
	FROM (SELECT translation_id, count(*) AS n FROM mirror.string_translations GROUP BY translation_id) AS t"

log "seed patterns: primary, then the streaming standby"
"$work/seedcheck" -corpus "$repo/testdata/corpus" -data "$work/demo1.json" -runs 3 \
	-dsn "$(dsn "$pp" mirror)" -dsn "$(dsn "$sp" mirror)"

log "croql serve on the standby"
port=$(freeport)
"$work/croql" serve --dsn "$(dsn "$sp" mirror)" --token t --listen "127.0.0.1:$port" 2>"$work/serve.log" &
serve_pid=$!
base="http://127.0.0.1:$port"
curl -s --retry 30 --retry-connrefused --retry-delay 1 -o /dev/null "$base/healthz"
get() { # get PATH: status and the first 100 bytes
	local out code
	out=$(curl -sS -w '\n%{http_code}' -H 'Authorization: Bearer t' "$base$1")
	code=${out##*$'\n'}
	printf '%s %s  %.100s\n' "$code" "$1" "${out%$'\n'*}"
}
for p in /api/v2/projects /api/v2/projects/1 '/api/v2/projects/1/strings?croql=count%20of%20translations%20%3E%200&limit=2' \
	/api/v2/projects/1/strings/1 '/api/v2/projects/1/languages/de/translations?limit=2' '/api/v2/projects/1/files?limit=2' \
	'/api/v2/projects/1/labels?limit=2' /api/v2/projects/1/languages/progress '/api/v2/tms/1/segments?limit=2' \
	'/api/v2/glossaries/1/terms?limit=2' '/api/v2/projects/1/strings?croql=count%20of%20translations%20%3E%200&withTotal=true&limit=1' \
	/api/v2/tms /api/v2/glossaries /api/v2/projects/1/languages/de/progress /api/v2/projects/1/files/1/languages/progress; do
	get "$p"
done
out=$(curl -sS -w '\n%{http_code}' -H 'Authorization: Bearer t' -H 'Content-Type: application/json' -d '{"croql":"count of comments > 0","limit":2,"withTotal":true}' \
	"$base/api/v2/projects/1/strings/query")
printf '%s POST /api/v2/projects/1/strings/query  %.100s\n' "${out##*$'\n'}" "${out%$'\n'*}"
log "an upload (a write) on the standby"
printf '{"intro":"First.","title":"Hi"}' >"$work/intro.json"
curl -sS -w '\n%{http_code}\n' -H 'Authorization: Bearer t' -F "file=@$work/intro.json" "$base/api/v2/projects/1/files"
log "the two-step upload: the storage is held in memory (201), its import is a write"
storage=$(curl -sS -H 'Authorization: Bearer t' -H 'Crowdin-API-FileName: intro.json' \
	--data-binary "@$work/intro.json" "$base/api/v2/storages")
echo "$storage"
id=$(printf '%s' "$storage" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
curl -sS -w '\n%{http_code}\n' -H 'Authorization: Bearer t' -H 'Content-Type: application/json' \
	-d "{\"storageId\":$id,\"name\":\"intro.json\"}" "$base/api/v2/projects/1/files"
kill "$serve_pid"
wait "$serve_pid" || true
serve_pid=
echo "-- croql serve's log:"
cat "$work/serve.log"

log "logical replica: schema, publication, subscription"
pg_dump -h 127.0.0.1 -p "$pp" -U postgres -d postgres --schema-only -n mirror | sql "$lp" >/dev/null
sql "$pp" -c 'CREATE PUBLICATION croql FOR TABLES IN SCHEMA mirror'
sql "$lp" -c "CREATE SUBSCRIPTION croql CONNECTION 'host=127.0.0.1 port=$pp user=postgres dbname=postgres' PUBLICATION croql"
synced() { # synced: waits until every subscribed table is copied and streaming
	for _ in $(seq 600); do
		if [ "$(sql "$lp" -c "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")" = 0 ] &&
			[ "$(sql "$lp" -c 'SELECT count(*) FROM pg_subscription_rel')" -gt 0 ]; then
			return 0
		fi
		sleep 0.2
	done
	echo "the logical replica did not sync" >&2
	return 1
}
synced
sql "$lp" -c 'SELECT count(*) || '"' tables subscribed'"' FROM pg_subscription_rel'
"$work/seedcheck" -corpus "$repo/testdata/corpus" -data "$work/demo1.json" -runs 3 -dsn "$(dsn "$lp" mirror)"

log "a second load on the primary (another project, schema mirror2)"
"$work/croql" load --dsn "$(dsn "$pp")" --schema mirror2 "$work/demo2.json"
log "the replica before its schema and a refresh: the new tables are not there"
sql "$lp" -c "SELECT count(*) || ' tables in mirror2 on the replica' FROM information_schema.tables WHERE table_schema = 'mirror2'"
pg_dump -h 127.0.0.1 -p "$pp" -U postgres -d postgres --schema-only -n mirror2 | sql "$lp" >/dev/null
sql "$pp" -c 'ALTER PUBLICATION croql ADD TABLES IN SCHEMA mirror2'
sql "$lp" -c 'ALTER SUBSCRIPTION croql REFRESH PUBLICATION'
synced
"$work/seedcheck" -corpus "$repo/testdata/corpus" -data "$work/demo2.json" -runs 3 -dsn "$(dsn "$lp" mirror2)"
log "an update on the primary reaches the replica (every table has a key: its replica identity)"
sql "$pp" -c "UPDATE mirror2.strings SET identifier = 'replicated' WHERE id = (SELECT min(id) FROM mirror2.strings)"
for _ in $(seq 100); do
	n=$(sql "$lp" -c "SELECT count(*) FROM mirror2.strings WHERE identifier = 'replicated'")
	[ "$n" = 1 ] && break
	sleep 0.1
done
echo "rows with the new identifier on the replica: $n"
sql "$lp" -c 'DROP SUBSCRIPTION croql'

log "a publication FOR ALL TABLES also publishes the rows of a load's scratch schema"
sql "$pp" -c 'CREATE PUBLICATION everything FOR ALL TABLES'
sql "$lp" -c 'CREATE DATABASE everything'
pg_dump -h 127.0.0.1 -p "$pp" -U postgres -d postgres --schema-only -n mirror -n mirror2 |
	psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$lp" -U postgres -d everything >/dev/null
psql -X -q -h 127.0.0.1 -p "$lp" -U postgres -d everything -c "CREATE SUBSCRIPTION everything
	CONNECTION 'host=127.0.0.1 port=$pp user=postgres dbname=postgres' PUBLICATION everything"
"$work/croql" load --dsn "$(dsn "$pp")" --schema mirror3 "$work/demo1.json"
lplog=$(pg_lsclusters -h | awk -v n=$logical '$2==n {print $7}')
for _ in $(seq 100); do
	grep -q 'logical replication target relation' "$lplog" && break
	sleep 0.2
done
grep -m1 -o 'ERROR:  logical replication target relation.*' "$lplog" || echo "no apply error in $lplog"
log "done"
