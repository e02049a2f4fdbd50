package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// vitessLookup is a lookup vindex of a keyed table placed with its string
// (strings, translations): from the row's key to the keyspace id of its
// shard, kept in a table of its own (named like the vindex) that vtgate
// fills and empties with the owner's rows (lookup_unique). A
// statement that finds rows by key alone (`id IN (...)`, as the
// coordinator and croql serve read them) is then sent to their shards
// only, after a lookup, instead of to every shard.
type vitessLookup struct {
	// owner is the table, key its key column, name the vindex's and the
	// lookup table's name.
	owner, key, name string
}

// vitessLookups are the lookup vindexes of m's tables.
func vitessLookups(m *mapping.Mapping) []vitessLookup {
	l, err := m.Layout()
	if err != nil {
		return nil
	}
	keys := m.ShardKeys()
	var out []vitessLookup
	for _, ti := range l.Tables {
		t := ti.Table
		if keys[t.Name] == mapping.ShardKeyColumn && t.Key != "" {
			out = append(out, vitessLookup{owner: t.Name, key: t.Key, name: t.Name + "_" + t.Key + "_lookup"})
		}
	}
	return out
}

// create is the CREATE TABLE of the lookup table.
func (v vitessLookup) create(d compile.Dialect) string {
	return "CREATE TABLE " + d.Quote(v.name) + " (" + d.Quote("id") + " " + d.ColumnType(schema.Int) + " NOT NULL, " +
		d.Quote("keyspace_id") + " VARBINARY(128), PRIMARY KEY (" + d.Quote("id") + "))" + d.TableOptions()
}

// vindex is the ALTER VSCHEMA that declares the vindex on its owner, the
// lookup table in keyspace.
func (v vitessLookup) vindex(d compile.Dialect, keyspace string) string {
	return "ALTER VSCHEMA ON " + d.Quote(v.owner) + " ADD VINDEX " + d.Quote(v.name) + "(" + d.Quote(v.key) +
		") USING lookup_unique WITH owner=" + d.Quote(v.owner) + ", table=" + d.Quote(keyspace+"."+v.name) +
		", from=" + d.Quote("id") + ", to=" + d.Quote("keyspace_id")
}

// createLookups creates, for a load on a sharded engine, the lookup
// tables of m's tables (placed by their key) and declares their vindexes,
// before any row: vtgate fills them as the rows are inserted. Other
// engines have none.
func createLookups(ctx context.Context, conn *sql.Conn, d compile.Dialect, m *mapping.Mapping) error {
	if _, ok := d.(compile.Sharding); !ok {
		return nil
	}
	var keyspace string
	if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&keyspace); err != nil {
		return fmt.Errorf("store: vitess: the keyspace of a load: %w", err)
	}
	v := compile.Vitess{}
	for _, lk := range vitessLookups(m) {
		if _, err := conn.ExecContext(ctx, lk.create(d)); err != nil {
			return fmt.Errorf("store: vitess: creating the lookup table %s: %w", lk.name, err)
		}
		if err := ownShardKey(ctx, conn, v, lk.name, "id", keyspace, nil); err != nil {
			return err
		}
		if err := addLookup(ctx, conn, v, keyspace, lk); err != nil {
			return err
		}
	}
	return nil
}

// addLookup declares lookup vindex lk on its owner and waits until vtgate
// shows it. A vindex of that name that the keyspace declares already but
// the owner's entry does not use (left by an earlier table, perhaps of
// another type or lookup table) is dropped first: vtgate refuses to
// declare it again otherwise.
func addLookup(ctx context.Context, q querier, d compile.Vitess, keyspace string, lk vitessLookup) error {
	declared, err := hasNamedVindex(ctx, q, "", lk.name)
	if err != nil {
		return err
	}
	if used, _ := hasNamedVindex(ctx, q, lk.owner, lk.name); declared && !used {
		stmt := "ALTER VSCHEMA DROP VINDEX " + d.Quote(keyspace) + "." + d.Quote(lk.name)
		err := alterVSchemaUntil(ctx, q, stmt, func(ctx context.Context) (bool, error) {
			has, err := hasNamedVindex(ctx, q, "", lk.name)
			return !has, err
		})
		if err != nil {
			return fmt.Errorf("store: vitess: dropping the vindex %s left by an earlier table: %w", lk.name, err)
		}
	}
	err = alterVSchemaUntil(ctx, q, lk.vindex(d, keyspace), func(ctx context.Context) (bool, error) {
		return hasNamedVindex(ctx, q, lk.owner, lk.name)
	})
	if err != nil {
		return fmt.Errorf("store: vitess: declaring the lookup vindex %s of %s: %w", lk.name, lk.owner, err)
	}
	return nil
}

// listVindexes returns the vindexes of table (SHOW VSCHEMA VINDEXES ON
// table) as "column name type" strings, or with table "" the names of
// the vindexes of the keyspace q is in; an error for a table the VSchema
// does not hold.
func listVindexes(ctx context.Context, q querier, table string) ([]string, error) {
	query := "SHOW VSCHEMA VINDEXES"
	keyspace := ""
	if table != "" {
		query += " ON " + compile.Vitess{}.Quote(table)
	} else if err := q.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&keyspace); err != nil {
		return nil, fmt.Errorf("store: vitess: the keyspace: %w", err)
	}
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var a, b, c, params, owner sql.NullString
		if err := rows.Scan(&a, &b, &c, &params, &owner); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: vitess: %s: %w", query, err)
		}
		if table == "" {
			// SHOW VSCHEMA VINDEXES lists every keyspace's.
			if a.String == keyspace {
				out = append(out, b.String)
			}
		} else {
			out = append(out, strings.ToLower(a.String+" "+b.String+" "+c.String))
		}
	}
	return out, errors.Join(rows.Err(), rows.Close())
}

// hasNamedVindex reports whether table's VSchema entry has the vindex
// name (or, with table "", the keyspace has it).
func hasNamedVindex(ctx context.Context, q querier, table, name string) (bool, error) {
	vs, err := listVindexes(ctx, q, table)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(vs, func(s string) bool {
		return s == name || strings.Contains(s, " "+strings.ToLower(name)+" ")
	}), nil
}

// dropScratchVindexes drops the keyspace's vindexes named after scratch
// tables whose scratch name drop accepts (their tables' entries gone).
func dropScratchVindexes(ctx context.Context, db *sql.DB, drop func(scratch string) bool) []error {
	var keyspace string
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&keyspace); err != nil {
		return []error{fmt.Errorf("store: vitess: the keyspace: %w", err)}
	}
	names, err := listVindexes(ctx, db, "")
	if err != nil {
		return []error{fmt.Errorf("store: vitess: the keyspace's vindexes: %w", err)}
	}
	var errs []error
	d := compile.Vitess{}
	for _, n := range names {
		if !scratchOf(n, drop) {
			continue
		}
		stmt := "ALTER VSCHEMA DROP VINDEX " + d.Quote(keyspace) + "." + d.Quote(n)
		err := alterVSchemaUntil(ctx, db, stmt, func(ctx context.Context) (bool, error) {
			has, err := hasNamedVindex(ctx, db, "", n)
			return !has, err
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
