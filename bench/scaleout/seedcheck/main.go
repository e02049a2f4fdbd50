// Command seedcheck runs the seed patterns (testdata/corpus/seed_patterns.txt)
// on databases croql load already filled, and compares each answer with the
// in-memory evaluator's on the same project file.
//
//	seedcheck -data project.json -dsn 'postgres://…&search_path=mirror' [-dsn …] [-runs 5]
//
// For each -dsn it prints one line: how many patterns return the
// evaluator's ids, and the engine time (the sum over the patterns of each
// pattern's fastest of -runs runs). -v prints every pattern. It exits 1 when
// an answer differs or a query fails. Nothing is written to the databases:
// it works on a read-only hot standby.
//
// On PostgreSQL, -params collate binds string parameters as
// ($n::text COLLATE "C") and -params plain as $n::text, instead of the
// dialect's own form (-params croql); -params plain,collate runs both,
// alternating run by run. -explain NAME prints EXPLAIN VERBOSE of the
// pattern NAME instead of running the patterns.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// pattern is one seed pattern, checked, with the evaluator's ids.
type pattern struct {
	name string
	q    *croql.Query
	ids  []int64
}

// clock is the fixed "now" of every check, so that relative dates give
// the same answer in the evaluator and in SQL.
func clock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

type dsnList []string

func (l *dsnList) String() string     { return strings.Join(*l, " ") }
func (l *dsnList) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "seedcheck:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("seedcheck", flag.ContinueOnError)
	data := fs.String("data", "", "project file (JSON) that was loaded")
	dir := fs.String("corpus", filepath.Join("..", "testdata", "corpus"), "directory of seed_patterns.txt")
	runs := fs.Int("runs", 3, "runs of each pattern; the fastest counts")
	verbose := fs.Bool("v", false, "print every pattern")
	params := fs.String("params", "croql", "PostgreSQL string parameters: croql (the dialect's form), collate or plain; a comma-separated list runs each, alternating")
	explain := fs.String("explain", "", "print EXPLAIN VERBOSE of this pattern instead of running the patterns")
	var dsns dsnList
	fs.Var(&dsns, "dsn", "database to check, in the reference schema (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || len(dsns) == 0 || *runs < 1 {
		return errors.New("usage: seedcheck -data project.json -dsn DSN [-dsn DSN ...] [-runs N] [-v] [-params croql|collate|plain] [-explain NAME]")
	}
	for _, form := range strings.Split(*params, ",") {
		if form != "croql" && form != "collate" && form != "plain" {
			return fmt.Errorf("-params: croql, collate or plain (or a comma-separated list), not %q", form)
		}
	}
	f, err := os.Open(*data)
	if err != nil {
		return err
	}
	p, err := schema.ReadProject(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("reading %s: %w", *data, err)
	}
	pats, err := patterns(*dir, p)
	if err != nil {
		return err
	}
	failed := false
	for _, dsn := range dsns {
		if *explain != "" {
			if err := explainPattern(ctx, dsn, pats, *explain, *params, out); err != nil {
				return err
			}
			continue
		}
		ok, err := check(ctx, dsn, pats, *runs, *params, *verbose, out)
		if err != nil {
			return err
		}
		failed = failed || !ok
	}
	if failed {
		return errors.New("some answers differ from the evaluator's")
	}
	return nil
}

// patterns checks every seed pattern that has an answer (no diagnostic)
// and computes the evaluator's ids on p.
func patterns(dir string, p *schema.Project) ([]pattern, error) {
	cases, err := corpus.LoadFile(filepath.Join(dir, "seed_patterns.txt"))
	if err != nil {
		return nil, err
	}
	var out []pattern
	for _, c := range cases {
		if c.Has("diag") || c.Get("stage") == "parse" {
			continue
		}
		ed := schema.Standard
		if c.Edition() == "enterprise" {
			ed = schema.Enterprise
		}
		env, err := croql.NewEnv(c.Context(), croql.WithUserIDs(p.UserIDs()), croql.WithClock(clock), croql.WithEdition(ed))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		q, diags := env.Compile(c.Query())
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s: %v", c.Name, diags)
		}
		ids := []int64{}
		for _, obj := range p.Objects(q.Context()) {
			hit, err := q.Match(obj)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, err)
			}
			if hit {
				id, _ := schema.ObjectID(obj)
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		out = append(out, pattern{name: c.Name, q: q, ids: ids})
	}
	if len(out) == 0 {
		return nil, errors.New("no seed pattern")
	}
	return out, nil
}

// check runs every pattern on dsn, in each form of params (a
// comma-separated list: croql, collate, plain), and prints a summary line
// per form. The forms' runs of a pattern alternate, so that a change in
// the machine's load falls on all of them alike.
func check(ctx context.Context, dsn string, pats []pattern, runs int, params string, verbose bool, out io.Writer) (bool, error) {
	db, err := store.OpenDSN(ctx, dsn)
	if err != nil {
		return false, err
	}
	defer db.Close()
	forms := strings.Split(params, ",")
	m := mapping.Default(schema.New())
	equal := make([]int, len(forms))
	total := make([]time.Duration, len(forms))
	for _, pt := range pats {
		stmts := make([]*compile.SQL, len(forms))
		for f, form := range forms {
			if stmts[f], err = compile.Compile(pt.q.Checked(), dialect(db.Dialect, form), m); err != nil {
				return false, fmt.Errorf("%s: %w", pt.name, err)
			}
		}
		best := make([]time.Duration, len(forms))
		status := make([]string, len(forms))
		for i := range runs {
			for f, s := range stmts {
				if status[f] != "" {
					continue
				}
				start := time.Now()
				got, err := store.RunSQL(ctx, db.SQL, s)
				d := time.Since(start)
				switch {
				case err != nil:
					status[f] = "error: " + err.Error()
				case !slices.Equal(got, pt.ids):
					status[f] = fmt.Sprintf("DIFFERENT: %d ids, the evaluator %d", len(got), len(pt.ids))
				case i == 0 || d < best[f]:
					best[f] = d
				}
			}
		}
		for f := range forms {
			total[f] += best[f]
			if status[f] == "" {
				equal[f]++
				status[f] = "equal"
			}
			if verbose || status[f] != "equal" {
				fmt.Fprintf(out, "  %-55s %8.2f ms  %d ids  %s (-params %s)\n", pt.name, ms(best[f]), len(pt.ids), status[f], forms[f])
			}
		}
	}
	ok := true
	for f, form := range forms {
		fmt.Fprintf(out, "%s: %d/%d seed patterns equal to the evaluator, engine time %.1f ms (fastest of %d runs each, summed; -params %s)\n",
			redact(dsn), equal[f], len(pats), ms(total[f]), runs, form)
		ok = ok && equal[f] == len(pats)
	}
	return ok, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// redact drops a password from a URL DSN for the printed line.
func redact(dsn string) string {
	if i, j := strings.Index(dsn, "://"), strings.LastIndex(dsn, "@"); i >= 0 && j > i {
		if k := strings.IndexByte(dsn[i+3:j], ':'); k >= 0 {
			return dsn[:i+3+k] + ":***" + dsn[j:]
		}
	}
	return dsn
}

// explainPattern prints EXPLAIN VERBOSE of the pattern name on dsn, in
// each form of params.
func explainPattern(ctx context.Context, dsn string, pats []pattern, name, params string, out io.Writer) error {
	i := slices.IndexFunc(pats, func(p pattern) bool { return p.name == name })
	if i < 0 {
		return fmt.Errorf("-explain: no seed pattern %q", name)
	}
	db, err := store.OpenDSN(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, form := range strings.Split(params, ",") {
		s, err := compile.Compile(pats[i].q.Checked(), dialect(db.Dialect, form), mapping.Default(schema.New()))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(out, "-- %s, -params %s\n", name, form)
		if err := explainSQL(ctx, db, s, out); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// explainSQL prints EXPLAIN VERBOSE of s.
func explainSQL(ctx context.Context, db *store.DB, s *compile.SQL, out io.Writer) error {
	rows, err := db.SQL.QueryContext(ctx, "EXPLAIN (VERBOSE, COSTS OFF) "+s.Select(), s.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		fmt.Fprintln(out, line)
	}
	return rows.Err()
}

// dialect is d, or on PostgreSQL d with the string parameters of params
// (see the package comment).
func dialect(d compile.Dialect, params string) compile.Dialect {
	pg, ok := d.(compile.Postgres)
	if !ok || params == "croql" {
		return d
	}
	return stringParams{Postgres: pg, collate: params == "collate"}
}

// stringParams is PostgreSQL with string parameters bound as
// ($n::text COLLATE "C") (collate) or $n::text.
type stringParams struct {
	compile.Postgres
	collate bool
}

// Param implements compile.Dialect.
func (d stringParams) Param(n int, k schema.Kind) string {
	if k != schema.String && k != schema.Language {
		return d.Postgres.Param(n, k)
	}
	if d.collate {
		return "($" + strconv.Itoa(n) + `::text COLLATE "C")`
	}
	return "$" + strconv.Itoa(n) + "::text"
}
