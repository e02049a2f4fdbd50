package store

import (
	"context"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestAppendCopyValue: each value in the binary COPY layout (a 4-byte
// length, -1 for NULL, then the bytes), and a value the column cannot hold
// is an error, never a reinterpretation of its bytes.
func TestAppendCopyValue(t *testing.T) {
	field := func(n int, b ...byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(n)), b...) }
	for _, c := range []struct {
		oid  uint32
		v    any
		want []byte
	}{
		{pgtype.Int8OID, nil, []byte{0xff, 0xff, 0xff, 0xff}},
		{pgtype.Int8OID, int64(-2), field(8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe)},
		{pgtype.Int4OID, int64(258), field(4, 0, 0, 1, 2)},
		{pgtype.Int2OID, int64(-1), field(2, 0xff, 0xff)},
		{pgtype.BoolOID, true, field(1, 1)},
		{pgtype.BoolOID, false, field(1, 0)},
		{pgtype.Float8OID, 1.5, field(8, binary.BigEndian.AppendUint64(nil, math.Float64bits(1.5))...)},
		{pgtype.TextOID, "héllo", field(6, []byte("héllo")...)},
		{pgtype.VarcharOID, "", field(0)},
	} {
		got, err := appendCopyValue(nil, c.oid, c.v)
		require.NoError(t, err, "%T %v", c.v, c.v)
		assert.Equal(t, c.want, got, "%T %v", c.v, c.v)
	}
	for _, c := range []struct {
		oid uint32
		v   any
	}{
		{pgtype.Int8OID, 1.5},
		{pgtype.Float8OID, int64(1)},
		{pgtype.Int4OID, int64(math.MaxInt32 + 1)},
		{pgtype.Int2OID, int64(math.MinInt16 - 1)},
		{pgtype.BoolOID, int64(1)},
		{pgtype.TextOID, true},
		{pgtype.Int8OID, int32(1)},
	} {
		_, err := appendCopyValue(nil, c.oid, c.v)
		assert.Error(t, err, "%T %v into OID %d", c.v, c.v, c.oid)
	}
	_, err := appendCopyRows(nil, []uint32{pgtype.Int8OID}, [][]any{{int64(1), int64(2)}})
	assert.Error(t, err, "a row longer than the columns")
	_, err = appendCopyRows(nil, []uint32{pgtype.NumericOID}, [][]any{{int64(1)}})
	assert.ErrorIs(t, err, errCopyType)
}

// TestCopyPostgres: Copy stores every value as it is, through the binary
// encoder or, for a column type it does not write (numeric), through
// pgx's; a value that does not fit is an error and stores nothing.
func TestCopyPostgres(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	ctx := context.Background()
	db, err := Open(ctx, "postgres", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, db.Close()) })
	_, err = db.SQL.Exec(`CREATE TABLE t (a bigint, b integer, c smallint, d boolean, e double precision, f text, g varchar(10))`)
	require.NoError(t, err)
	_, err = db.SQL.Exec(`CREATE TABLE n (a numeric, b text)`)
	require.NoError(t, err)
	conn, err := db.SQL.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	rows := [][]any{
		{int64(math.MinInt64), int64(math.MaxInt32), int64(math.MinInt16), true, -0.25, "naïve ☃", "x"},
		{nil, nil, nil, nil, nil, nil, nil},
		{int64(0), int64(0), int64(0), false, math.MaxFloat64, "", ""},
	}
	cols := []string{"a", "b", "c", "d", "e", "f", "g"}
	require.NoError(t, Copy(ctx, conn, "t", cols, rows))
	got, err := db.SQL.Query(`SELECT a, b, c, d, e, f, g FROM t ORDER BY a NULLS LAST`)
	require.NoError(t, err)
	defer got.Close()
	var back [][]any
	for got.Next() {
		row := make([]any, 7)
		ptrs := make([]any, 7)
		for i := range row {
			ptrs[i] = &row[i]
		}
		require.NoError(t, got.Scan(ptrs...))
		back = append(back, row)
	}
	require.NoError(t, got.Err())
	assert.Equal(t, [][]any{rows[0], rows[2], rows[1]}, back)

	require.NoError(t, Copy(ctx, conn, "n", []string{"a", "b"}, [][]any{{int64(12), "twelve"}}))
	var s string
	require.NoError(t, db.SQL.QueryRow(`SELECT a::text || b FROM n`).Scan(&s))
	assert.Equal(t, "12twelve", s)

	assert.Error(t, Copy(ctx, conn, "t", []string{"a"}, [][]any{{1.5}}), "a float into bigint")
	assert.Error(t, Copy(ctx, conn, "t", []string{"g"}, [][]any{{"longer than ten"}}), "the server's own checks hold")
	var n int
	require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM t`).Scan(&n))
	assert.Equal(t, 3, n)
}

// TestLoadPostgresCopyError: a copy that fails in the background fails
// the load, and nothing of it is committed.
func TestLoadPostgresCopyError(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	ctx := context.Background()
	db, err := Open(ctx, "postgres", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, db.Close()) })
	m := mapping.Default(schema.New())
	l, err := NewLoader(ctx, db, m)
	require.NoError(t, err)
	// The server refuses what the table cannot take: a CHECK added after
	// the tables were created (the strings are copied later, the table
	// is not locked yet), which the loader knows nothing of.
	p := demo.Generate(demo.Options{Strings: 50, Seed: 3})
	require.NoError(t, l.Head(p))
	_, err = db.SQL.ExecContext(ctx, `ALTER TABLE strings ADD CHECK (id < 0)`)
	require.NoError(t, err)
	for i := range p.Strings {
		if err = l.Add(&p.Strings[i]); err != nil {
			break
		}
	}
	if err == nil {
		err = l.Finish()
	} else {
		l.Abort()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), `violates check constraint "strings_id_check"`)
	var n int
	require.NoError(t, db.SQL.QueryRow(`SELECT count(*) FROM strings`).Scan(&n))
	assert.Zero(t, n)
}

// TestLoadPostgresUnlogged: Open's scratch tables are UNLOGGED, a lasting
// load's (OpenTarget) are not; both have their primary keys and indexes.
func TestLoadPostgresUnlogged(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	ctx := context.Background()
	m := mapping.Default(schema.New())
	p := demo.Generate(demo.Options{Strings: 30, Seed: 5})
	scratch, err := Open(ctx, "postgres", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, scratch.Close()) })
	require.NoError(t, Load(ctx, scratch, m, p))

	name, err := scratchName(time.Now())
	require.NoError(t, err)
	target, err := OpenTarget(ctx, "postgres", dsn, name)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := target.SQL.Exec(`DROP SCHEMA ` + compile.Postgres{}.Quote(name) + ` CASCADE`)
		assert.NoError(t, err)
		assert.NoError(t, target.Close())
	})
	require.NoError(t, Load(ctx, target, m, p))

	keys := 2 // the LoadMarker's and the ProjectTable's
	for _, stmt := range DDL(compile.Postgres{}, m) {
		keys += strings.Count(stmt, "PRIMARY KEY")
	}
	for _, c := range []struct {
		schema      string
		persistence string
	}{{scratch.Schema, "u"}, {name, "p"}} {
		var tables, pkeys, other int
		require.NoError(t, scratch.SQL.QueryRow(`SELECT count(*) FILTER (WHERE c.relpersistence = $2), count(*) FILTER (WHERE c.relpersistence <> $2),
			(SELECT count(*) FROM pg_constraint k WHERE k.connamespace = n.oid AND k.contype = 'p')
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' GROUP BY n.oid`,
			c.schema, c.persistence).Scan(&tables, &other, &pkeys))
		assert.Equal(t, len(m.TablesWithCounts())+2, tables, c.schema) // and the LoadMarker and the ProjectTable
		assert.Zero(t, other, c.schema)
		assert.Equal(t, keys, pkeys, c.schema)
	}
}

// TestLoadRejectsListedTwice: a string that lists one label or one
// translation twice is an error on every engine; the same label or
// translation on two strings is not.
func TestLoadRejectsListedTwice(t *testing.T) {
	ctx := context.Background()
	m := mapping.Default(schema.New())
	open := map[string]func(t *testing.T) *DB{
		"sqlite": func(t *testing.T) *DB {
			db, err := OpenSQLite("")
			require.NoError(t, err)
			return db
		},
		"postgres": func(t *testing.T) *DB {
			db, err := Open(ctx, "postgres", serverDSN(t, "postgres"))
			require.NoError(t, err)
			return db
		},
	}
	for name, open := range open {
		t.Run(name, func(t *testing.T) {
			for _, c := range []struct {
				what string
				edit func(p *schema.Project) bool
			}{
				{"label", func(p *schema.Project) bool {
					for i := range p.Strings {
						if s := &p.Strings[i]; len(s.Labels) > 0 {
							s.Labels = append(s.Labels, s.Labels[0])
							return true
						}
					}
					return false
				}},
				{"translation", func(p *schema.Project) bool {
					for i := range p.Strings {
						if s := &p.Strings[i]; len(s.Translations) > 0 {
							s.Translations = append(s.Translations, s.Translations[0])
							return true
						}
					}
					return false
				}},
			} {
				p := demo.Generate(demo.Options{Strings: 40, Seed: 8})
				db := open(t)
				require.NoError(t, Load(ctx, db, m, p), "as generated")
				require.NoError(t, db.Close())
				require.True(t, c.edit(p))
				db = open(t)
				err := Load(ctx, db, m, p)
				require.Error(t, err, c.what)
				assert.Contains(t, err.Error(), c.what+" ", c.what)
				assert.Contains(t, err.Error(), "twice", c.what)
				require.NoError(t, db.Close())
			}
		})
	}
}

// TestCopierSmallLimit: with a limit of a few hundred bytes each table
// goes in many COPY statements, sent in the background while the loader
// reads on, and the tables hold what one COPY per table stores.
func TestCopierSmallLimit(t *testing.T) {
	dsn := serverDSN(t, "postgres")
	ctx := context.Background()
	m := mapping.Default(schema.New())
	p := demo.Generate(demo.Options{Strings: 150, Seed: 21})
	sums := make([]map[string]string, 2)
	for i, limit := range []int{copyLimit, 300} {
		db, err := Open(ctx, "postgres", dsn)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, db.Close()) })
		c := newCopier(false)
		c.limit = limit
		require.NoError(t, LoadSQL(ctx, db.SQL, db.Dialect, m, p, WithCopy(c.Copy), WithCopyWait(c.Wait)))
		sums[i] = map[string]string{}
		for _, table := range m.TableNames() {
			var n int
			var sum string
			q := compile.Postgres{}.Quote(table)
			require.NoError(t, db.SQL.QueryRow(`SELECT count(*), coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM `+q+` x`).Scan(&n, &sum))
			sums[i][table] = strconv.Itoa(n) + " " + sum
		}
	}
	assert.Equal(t, sums[0], sums[1])
	assert.NotEqual(t, "0 ", sums[1]["translations"])
}
