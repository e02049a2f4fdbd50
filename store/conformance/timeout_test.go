package compile_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// nestedTranslations is the issue's H1 reproducer: depth levels of `count
// of translations where (...) > 0` around `text = "x"`.
func nestedTranslations(depth int) string {
	q := `text = "x"`
	for range depth {
		q = "count of translations where (" + q + ") > 0"
	}
	return q
}

// costlyProject has strings with 20 translations each, none of text "x":
// the nested query visits 20^depth translations per string.
func costlyProject() *schema.Project {
	p := demoProject()
	out := *p
	out.Strings = nil
	for i := range 3 {
		s := schema.SourceString{ID: int64(1000 + i), Type: "plain", Text: "x", Identifier: "k", Added: p.Strings[0].Added}
		for j := range 20 {
			s.Translations = append(s.Translations, schema.Translation{ID: int64(10000 + 100*i + j), StringID: s.ID,
				Language: "de", Text: "y", PluralForm: "none", User: p.Users[0].ID, Updated: p.Strings[0].Added})
		}
		out.Strings = append(out.Strings, s)
	}
	out.TMSegments, out.GlossaryTerms, out.GlossaryConcepts = nil, nil, nil
	return &out
}

// TestRunStopsAtDeadline: a statement that would run for hours on SQLite
// (the nested query, which SQLite runs as nested loops) stops when
// the context's deadline passes, with an error, and on every engine a cheap
// one under a deadline answers as without one. The bound on how
// long it may take is generous on purpose: the test asserts that Run
// returns, not how fast.
func TestRunStopsAtDeadline(t *testing.T) {
	for _, name := range engines(t) {
		t.Run(name, func(t *testing.T) {
			db := openLoaded(t, name, costlyProject())
			m := mapping.Default(catalogOf(nil))

			cheap, err := compile.Compile(check(t, nestedTranslations(1), checkOpts{}), db.Dialect, m)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ids, err := store.RunSQL(ctx, db.SQL, cheap)
			require.NoError(t, err)
			assert.Empty(t, ids)
			cheap2, err := compile.Compile(check(t, `count of translations where (text = "y") > 0`, checkOpts{}), db.Dialect, m)
			require.NoError(t, err)
			ids, err = store.RunSQL(ctx, db.SQL, cheap2)
			require.NoError(t, err)
			assert.Equal(t, []int64{1000, 1001, 1002}, ids)

			costly, err := compile.Compile(check(t, nestedTranslations(7), checkOpts{maxCost: -1}), db.Dialect, m)
			require.NoError(t, err)
			ctx, cancel = context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := store.RunSQL(ctx, db.SQL, costly)
				done <- err
			}()
			select {
			case err := <-done:
				if name != "sqlite" && err == nil {
					// PostgreSQL and MariaDB see that each level's subquery
					// depends on the string only, and run it once per
					// string: the nesting costs them nothing.
					break
				}
				require.Error(t, err)
				timedOut := errors.Is(err, context.DeadlineExceeded) ||
					strings.Contains(err.Error(), "statement timeout") || strings.Contains(err.Error(), "57014") ||
					strings.Contains(err.Error(), "interrupted") || strings.Contains(err.Error(), "max_execution_time")
				assert.True(t, timedOut, "a deadline error, got %v", err)
			case <-time.After(2 * time.Minute):
				t.Fatal("Run did not return within 2 minutes of a 1 s deadline")
			}
			// The pool still works afterwards.
			ids, err = store.RunSQL(context.Background(), db.SQL, cheap2)
			require.NoError(t, err)
			assert.Len(t, ids, 3)
		})
	}
}

// deadlineOnly reports a deadline but is never done: only the server can
// stop a statement run under it.
type deadlineOnly struct {
	context.Context
	at time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.at, true }

// TestRunTellsTheServer: a statement under a deadline runs with the
// server's statement timeout set to the time left (PostgreSQL's
// statement_timeout, SQLSTATE 57014; MariaDB's max_statement_time, error
// 1969), so the server stops it by itself even when the client's
// cancellation never comes; afterwards the pool's connections have the
// server's default again.
func TestRunTellsTheServer(t *testing.T) {
	for _, name := range engines(t) {
		if name == "sqlite" {
			continue // embedded: the context interrupts it (TestRunStopsAtDeadline)
		}
		t.Run(name, func(t *testing.T) {
			db := openLoaded(t, name, costlyProject())
			done := make(chan error, 1)
			go func() {
				var err error
				switch name {
				case "postgres":
					ctx := deadlineOnly{context.Background(), time.Now().Add(500 * time.Millisecond)}
					_, err = store.RunSelect(ctx, db.SQL, db.Dialect, "SELECT 1 FROM pg_sleep(60)", nil)
				default:
					ctx := deadlineOnly{context.Background(), time.Now().Add(500 * time.Millisecond)}
					_, err = store.RunSelect(ctx, db.SQL, db.Dialect, "SELECT SLEEP(60)", nil)
				}
				done <- err
			}()
			select {
			case err := <-done:
				require.Error(t, err)
				if name == "postgres" {
					assert.Contains(t, err.Error(), "57014", "the server's statement timeout")
				} else {
					assert.Contains(t, err.Error(), "max_statement_time", "MariaDB's statement timeout")
				}
			case <-time.After(50 * time.Second):
				t.Fatal("the statement was not stopped")
			}
			// Without a deadline, no timeout is set, and none is left over.
			ids, err := store.RunSelect(context.Background(), db.SQL, db.Dialect, "SELECT 7", nil)
			require.NoError(t, err)
			assert.Equal(t, []int64{7}, ids)
			db.SQL.SetMaxOpenConns(1)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err = store.RunSelect(ctx, db.SQL, db.Dialect, "SELECT 8", nil)
			require.NoError(t, err)
			var setting string
			if name == "postgres" {
				require.NoError(t, db.SQL.QueryRow("SHOW statement_timeout").Scan(&setting))
				assert.Equal(t, "0", setting)
			} else {
				require.NoError(t, db.SQL.QueryRow("SELECT @@SESSION.max_statement_time = @@GLOBAL.max_statement_time").Scan(&setting))
				assert.Equal(t, "1", setting)
			}
		})
	}
}
