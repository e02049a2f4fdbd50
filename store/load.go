package store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// OpenTarget opens the database dsn names for a lasting load into the
// schema the DSN points at (PostgreSQL's search_path, MySQL's database,
// the SQLite file), or into schemaName (PostgreSQL schema, MySQL
// database) when it is not empty, created when the load is moved in if
// it is missing.
//
// A load through LoadFile is atomic. On SQLite it is one transaction,
// tables and indexes included. On PostgreSQL and MySQL it goes into a
// scratch schema (database) that LoadFile, once rows, keys, indexes and
// statistics are all there, moves into the target in one step (one
// transaction of ALTER TABLE ... SET SCHEMA; one RENAME TABLE); a load
// that fails leaves the target as it was, and Close drops the scratch. On
// Vitess it is built in the target keyspace under scratch table names,
// then renamed into place by one RENAME TABLE, which each shard runs
// atomically.
// Close leaves the loaded data in place.
func OpenTarget(ctx context.Context, engine, dsn, schemaName string) (*DB, error) {
	b, err := backendByName(engine)
	if err != nil {
		return nil, err
	}
	if dsn == "" {
		return nil, fmt.Errorf("store: %s: a load needs a DSN", engine)
	}
	if ip, ok := b.(inPlaceTarget); ok {
		return ip.openTarget(ctx, dsn, schemaName)
	}
	sc := b.scratch()
	if sc == nil {
		if schemaName != "" {
			return nil, errors.New("store: sqlite has no schemas: name another file")
		}
		return OpenSQLite(dsn)
	}
	d := b.dialect()
	target, create := schemaName, schemaName != ""
	if !create {
		admin, err := b.pool(dsn, "")
		if err != nil {
			return nil, err
		}
		target, err = b.current(ctx, admin)
		admin.Close()
		if err != nil {
			return nil, err
		}
	}
	db, name, drop, err := openScratch(ctx, b, dsn)
	if err != nil {
		return nil, err
	}
	out := &DB{SQL: db, Dialect: d, Schema: name, backend: b, close: func() error { return errors.Join(db.Close(), drop()) }}
	out.publish = func(ctx context.Context) error {
		admin, err := b.pool(dsn, "")
		if err != nil {
			return err
		}
		defer admin.Close()
		tables := append(tableNames(d, mapping.Default(schema.New())), mapping.LoadMarker, mapping.ProjectTable)
		return b.publish(ctx, admin, name, target, create, tables)
	}
	return out, nil
}

// Publish moves a finished load into its target (see OpenTarget): Load
// and LoadFile call it; a load through NewLoader calls it after Finish.
// It does nothing for a database that is not a target of OpenTarget, or
// whose load was published already.
func (db *DB) Publish(ctx context.Context) error {
	if db == nil || db.publish == nil {
		return nil
	}
	if err := db.publish(ctx); err != nil {
		return err
	}
	db.publish = nil
	return nil
}

// LoadStats is what LoadFile stored.
type LoadStats struct {
	Objects int64 // strings, TM segments, glossary terms and concepts
	Rows    int64 // rows of every table
	Skipped int64 // lines skipped (ReadOptions.SkipBad)
	// Head is the file's head: its name, languages, users, files and
	// branches, without the objects (nil before the head is read).
	Head *schema.Project
}

// LoadFile streams a project file (JSON or NDJSON, docs/data-format.md)
// into db with the default mapping: it creates the tables, which must not
// exist, and stores each object as it is read, so that memory does not
// grow with the file. progress, when set, is called after each batch of
// objects with the stats so far. Into a database of OpenTarget the load
// is atomic: on an error the target is left as it was.
func LoadFile(ctx context.Context, db *DB, r io.Reader, opts schema.ReadOptions, progress func(LoadStats)) (LoadStats, error) {
	var st LoadStats
	if db == nil || db.SQL == nil {
		return st, errors.New("store: LoadFile needs an open database")
	}
	m := mapping.Default(schema.New())
	l, err := NewLoader(ctx, db, m)
	if err != nil {
		return st, err
	}
	skipped := opts.Skipped
	opts.Skipped = func(line int, err error) {
		st.Skipped++
		if skipped != nil {
			skipped(line, err)
		}
	}
	err = schema.Stream(ctx, r, opts, schema.Handler{
		Head: func(p *schema.Project) (func(*schema.Item) error, error) {
			st.Head = p
			return nil, l.Head(p)
		},
		Emit: func(items []*schema.Item) error {
			for _, it := range items {
				if err := l.Add(it.Value); err != nil {
					return fmt.Errorf("line %d: %w", it.Line, err)
				}
			}
			st.Objects += int64(len(items))
			st.Rows = l.Rows()
			if progress != nil {
				progress(st)
			}
			return nil
		},
	})
	if err != nil {
		l.Abort()
		return st, err
	}
	if err := l.Finish(); err != nil {
		return st, err
	}
	st.Rows = l.Rows()
	return st, db.Publish(ctx)
}
