package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// TestVitessColocated: on a 2-shard keyspace a load places a master
// string, its duplicates and everything under them on one shard: on each
// shard, every join row finds its translation and every vote, approval
// and comment its parent, and a duplicate sharing its master's
// translations holds the master's id as its shard key.
func TestVitessColocated(t *testing.T) {
	dsn := serverDSN(t, "vitess")
	ctx := context.Background()
	db, err := Open(ctx, "vitess", dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	p := demo.Generate(demo.Options{Strings: 400, Seed: 4})
	require.NoError(t, Load(ctx, db, mapping.Default(schema.New()), p))

	shared := 0
	master := map[int64]int64{} // a duplicate's master, by the translations it shares
	for _, s := range p.Strings {
		for _, tr := range s.Translations {
			if tr.StringID != s.ID {
				master[s.ID] = tr.StringID
			}
		}
	}
	for dup, m := range master {
		var key int64
		require.NoError(t, db.SQL.QueryRowContext(ctx, "SELECT shard_key FROM strings WHERE id = ?", dup).Scan(&key))
		assert.Equal(t, m, key, "string %d shares the translations of string %d", dup, m)
		shared++
	}
	require.Positive(t, shared, "the project has duplicates that share translations")

	conn, err := db.SQL.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	orphans := map[string]string{
		"string_translations": "SELECT count(*) FROM string_translations AS l WHERE NOT EXISTS (SELECT 1 FROM translations AS t WHERE t.id = l.translation_id)",
		"string_labels":       "SELECT count(*) FROM string_labels AS l WHERE NOT EXISTS (SELECT 1 FROM strings AS s WHERE s.id = l.string_id)",
		"votes":               "SELECT count(*) FROM votes AS v WHERE NOT EXISTS (SELECT 1 FROM translations AS t WHERE t.id = v.translation_id)",
		"approvals":           "SELECT count(*) FROM approvals AS a WHERE NOT EXISTS (SELECT 1 FROM translations AS t WHERE t.id = a.translation_id)",
		"comments":            "SELECT count(*) FROM comments AS c WHERE NOT EXISTS (SELECT 1 FROM strings AS s WHERE s.id = c.string_id)",
	}
	rows := 0
	for _, shard := range []string{"-80", "80-"} {
		_, err := conn.ExecContext(ctx, "USE `"+db.Schema+"/"+shard+"`")
		require.NoError(t, err)
		var n int
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT count(*) FROM string_translations").Scan(&n))
		assert.Positive(t, n, "join rows on shard %s", shard)
		rows += n
		for table, q := range orphans {
			require.NoError(t, conn.QueryRowContext(ctx, q).Scan(&n))
			assert.Zero(t, n, "rows of %s on shard %s without their parent there", table, shard)
		}
	}
	var all int
	_, err = conn.ExecContext(ctx, "USE `"+db.Schema+"`")
	require.NoError(t, err)
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT count(*) FROM string_translations").Scan(&all))
	assert.Equal(t, all, rows)
}

// TestVitessTwoMasters: a translation listed by strings of two masters
// has no one shard, and the load says so.
func TestVitessTwoMasters(t *testing.T) {
	dsn := serverDSN(t, "vitess")
	ctx := context.Background()
	db, err := Open(ctx, "vitess", dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	p := demo.Generate(demo.Options{Strings: 3, Seed: 2})
	require.GreaterOrEqual(t, len(p.Strings[0].Translations), 1)
	require.GreaterOrEqual(t, len(p.Strings[1].Translations), 1)
	// The third string lists a translation of each of the first two.
	a, b := p.Strings[0].Translations[0], p.Strings[1].Translations[0]
	p.Strings[2].Translations = []schema.Translation{a, b}
	err = Load(ctx, db, mapping.Default(schema.New()), p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "on a sharded engine a translation goes with one master string and its duplicates")
}

// TestVitessEarlierLayout: a keyspace whose tables lack the shard key
// column (a load by an earlier croql) is refused as incomplete, with
// "load the data again".
func TestVitessEarlierLayout(t *testing.T) {
	dsn := serverDSN(t, "vitess")
	ctx := context.Background()
	db, err := Open(ctx, "vitess", dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	require.NoError(t, Load(ctx, db, mapping.Default(schema.New()), demo.Generate(demo.Options{Strings: 5, Seed: 1})))
	require.NoError(t, CheckLoaded(ctx, db.SQL, db.Dialect))
	_, err = db.SQL.ExecContext(ctx, "ALTER TABLE comments DROP COLUMN "+mapping.ShardKeyColumn)
	require.NoError(t, err)
	err = CheckLoaded(ctx, db.SQL, db.Dialect)
	require.ErrorIs(t, err, ErrIncomplete)
	assert.Contains(t, err.Error(), "table comments has no column shard_key")
	assert.Contains(t, err.Error(), "load the data again")
}
