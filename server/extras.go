package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
)

// The API's extra tables hold what the platform's objects show and CroQL
// does not query, so the reference schema has no column for it: the
// language of a TM record and the date a translation was added. They sit
// beside the reference tables in the project's database (dropped with it)
// and are read with a LEFT JOIN, so data served from a DSN without them,
// and rows added by an upload, read as absent.
const (
	extraRecordLanguages = "croql_api_tm_record_languages"
	extraTranslationDate = "croql_api_translation_added"
)

// loadExtras creates and fills the extra tables from data.
func loadExtras(ctx context.Context, db *sql.DB, d compile.Dialect, data *schema.Project) error {
	text := "TEXT"
	if _, ok := d.(compile.MySQL); ok {
		text = "VARCHAR(64)"
	}
	for _, ddl := range []string{
		"CREATE TABLE " + d.Quote(extraRecordLanguages) + " (record_id BIGINT PRIMARY KEY, language " + text + " NOT NULL)",
		"CREATE TABLE " + d.Quote(extraTranslationDate) + " (translation_id BIGINT PRIMARY KEY, added BIGINT NOT NULL)",
	} {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("server: the API's extra tables: %w", err)
		}
	}
	var langs, added [][2]any
	for _, s := range data.TMSegments {
		for _, r := range s.Records {
			langs = append(langs, [2]any{r.ID, r.Language})
		}
	}
	seen := map[int64]bool{}
	for _, s := range data.Strings {
		for _, t := range s.Translations {
			if !seen[t.ID] {
				seen[t.ID] = true
				added = append(added, [2]any{t.ID, int64(t.Added)})
			}
		}
	}
	if err := insertPairs(ctx, db, d, extraRecordLanguages, "record_id, language", langs); err != nil {
		return err
	}
	return insertPairs(ctx, db, d, extraTranslationDate, "translation_id, added", added)
}

// insertPairs inserts rows of two values in batches of bound parameters.
func insertPairs(ctx context.Context, db *sql.DB, d compile.Dialect, table, cols string, rows [][2]any) error {
	const batch = 500
	for len(rows) > 0 {
		n := min(len(rows), batch)
		var q strings.Builder
		q.WriteString("INSERT INTO " + d.Quote(table) + " (" + cols + ") VALUES ")
		args := make([]any, 0, 2*n)
		for i, r := range rows[:n] {
			if i > 0 {
				q.WriteString(", ")
			}
			args = append(args, r[0], r[1])
			q.WriteString("(" + d.Placeholder(len(args)-1) + ", " + d.Placeholder(len(args)) + ")")
		}
		if _, err := db.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("server: filling %s: %w", table, err)
		}
		rows = rows[n:]
	}
	return nil
}

// dataDates are the earliest and the latest date of the project's strings.
func dataDates(data *schema.Project) (first, last time.Time) {
	for _, s := range data.Strings {
		for _, t := range []*schema.Time{&s.Added, s.Updated} {
			if t == nil {
				continue
			}
			v := t.Std()
			if first.IsZero() || v.Before(first) {
				first = v
			}
			if v.After(last) {
				last = v
			}
		}
	}
	return first, last
}
