#!/usr/bin/env bash
# postgres_fdw hash shards under croql: a coordinator cluster whose tables
# are hash-partitioned (MODULUS 2) into foreign tables on two shard
# clusters, against the same data in plain tables on the coordinator, in
# one run. Throwaway clusters on free loopback ports, removed at the end.
#
#   sudo bench/scaleout/pg-fdw.sh      # as root; a few minutes
#
# Each table is partitioned by the first column of its primary key (a
# string's id for the tables of a string's children, a translation's id
# for votes and approvals). seedcheck runs the seed patterns on both
# schemas, ids compared with the evaluator's, with string parameters bound
# as $n::text and as croql binds them, ($n::text COLLATE "C"), and EXPLAIN
# VERBOSE of one pattern shows what each form sends to the shards. Last, why the
# parameters keep their COLLATE "C": a comparison of two of them in a
# database whose default collation is ICU's en, and the conformance corpus
# on that database.
source "$(dirname "$0")/lib.sh"

coord=scaleout_coord shard0=scaleout_shard0 shard1=scaleout_shard1
cleanup() { for c in $coord $shard0 $shard1; do dropcluster "$c"; done; }
trap cleanup EXIT

build
demo "$work/demo1.json" 1
"$work/croql" demo --strings 0 --format json >"$work/empty.json"

cp=$(freeport) p0=$(freeport) p1=$(freeport)
log "coordinator on $cp, shards on $p0 and $p1"
newcluster $coord "$cp"
newcluster $shard0 "$p0"
newcluster $shard1 "$p1"

log "croql load into the coordinator, schema plain"
"$work/croql" load --dsn "$(dsn "$cp")" --schema plain "$work/demo1.json"
log "the reference tables, empty, on each shard (schema shard)"
for p in "$p0" "$p1"; do
	"$work/croql" load --dsn "$(dsn "$p")" --schema shard "$work/empty.json" >/dev/null
	sql "$p" -c "SELECT 'TRUNCATE ' || string_agg('shard.' || quote_ident(tablename), ', ') FROM pg_tables WHERE schemaname = 'shard'" | sql "$p"
done

log "schema sharded on the coordinator: partitioned tables of foreign partitions"
sql "$cp" <<SQL
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard0 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$p0', dbname 'postgres');
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$p1', dbname 'postgres');
CREATE USER MAPPING FOR postgres SERVER shard0 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR postgres SERVER shard1 OPTIONS (user 'postgres');
CREATE SCHEMA sharded;
SQL
sql "$cp" -F ' ' -c "SELECT c.relname, a.attname FROM pg_constraint k
	JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
	JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.conkey[1]
	WHERE n.nspname = 'plain' AND k.contype = 'p' ORDER BY 1" |
	while read -r t k; do
		cat <<SQL
CREATE TABLE sharded."$t" (LIKE plain."$t") PARTITION BY HASH ("$k");
CREATE FOREIGN TABLE sharded."${t}_0" PARTITION OF sharded."$t" FOR VALUES WITH (MODULUS 2, REMAINDER 0)
  SERVER shard0 OPTIONS (schema_name 'shard', table_name '$t');
CREATE FOREIGN TABLE sharded."${t}_1" PARTITION OF sharded."$t" FOR VALUES WITH (MODULUS 2, REMAINDER 1)
  SERVER shard1 OPTIONS (schema_name 'shard', table_name '$t');
INSERT INTO sharded."$t" SELECT * FROM plain."$t";
ANALYZE sharded."$t";
SQL
	done | sql "$cp"
for p in "$p0" "$p1"; do sql "$p" -c 'ANALYZE'; done
sql "$cp" -c "SELECT 'rows on shard 0: ' || (SELECT count(*) FROM sharded.strings_0) || ' strings, shard 1: ' || (SELECT count(*) FROM sharded.strings_1)"

log "seed patterns on plain, then on sharded: string parameters as \$n::text and as (\$n::text COLLATE \"C\"), run by run in turn"
"$work/seedcheck" -corpus "$repo/testdata/corpus" -data "$work/demo1.json" -runs 5 -params plain,collate -v \
	-dsn "$(dsn "$cp" plain)" -dsn "$(dsn "$cp" sharded)" >"$work/ab.txt"
grep -v '^  ' "$work/ab.txt"
log "the patterns whose time on the shards differs by more than a quarter between the two forms"
# seedcheck prints a database's pattern lines (name, ms, ..., (-params
# FORM)) before its summary lines: the sharded lines follow plain's summary.
awk '/search_path=plain/ { sharded = 1 }
	/^  / && sharded { t[$1, $NF] = $2; names[$1] = 1 }
	END { for (n in names) { a = t[n, "plain)"]; b = t[n, "collate)"]
		if (a > 0 && b > 0 && (a / b > 1.25 || b / a > 1.25)) printf "  %-50s %9.2f ms as $n::text, %9.2f ms with COLLATE \"C\"\n", n, a, b } }' "$work/ab.txt" | sort
log "EXPLAIN VERBOSE on the shards: what each form sends to them (Remote SQL) and filters on the coordinator"
"$work/seedcheck" -corpus "$repo/testdata/corpus" -data "$work/demo1.json" -params plain,collate \
	-explain seed-key-and-file -dsn "$(dsn "$cp" sharded)" | grep -E '^-- |Remote SQL|Filter' | sed 's/^ *//' | uniq
log "the five slowest patterns on the shards (fastest of 3 runs)"
"$work/seedcheck" -corpus "$repo/testdata/corpus" -data "$work/demo1.json" -runs 3 -v -dsn "$(dsn "$cp" sharded)" |
	grep ' ms ' | sort -k2 -n -r | sed -n 1,5p

log "why string parameters keep COLLATE \"C\": croql compiles a comparison of two strings to"
"$work/croql" sql '"a" < "B"' | sed -n 1p
log "which, in a database whose default collation is ICU's en, is:"
sql "$cp" -c "CREATE DATABASE icu LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C.UTF-8' TEMPLATE template0"
psql -X -q -h 127.0.0.1 -p "$cp" -U postgres -d icu -c "PREPARE cmp(text, text) AS
	SELECT \$1::text < \$2::text AS \"plain: \$1::text\", (\$1::text COLLATE \"C\") < (\$2::text COLLATE \"C\") AS \"croql: COLLATE C\"" \
	-c "EXECUTE cmp('a', 'B')"
log "the conformance corpus on that database: croql's answers do not depend on its default collation"
(cd "$repo" && CROQL_POSTGRES_DSN="postgres://postgres@127.0.0.1:$cp/icu?sslmode=disable" CROQL_MYSQL_DSN= \
	CROQL_REQUIRE_DB=postgres nice go test -count=1 ./store/conformance/)
log "done"
