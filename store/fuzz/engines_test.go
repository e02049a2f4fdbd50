package fuzz_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
	"github.com/croql/croql/store/fuzz"
	"github.com/croql/croql/typecheck"
)

// The engines a query runs on: the closure evaluator, the reference
// interpreter, embedded SQLite, and PostgreSQL and MariaDB when their DSN
// is set (internal/testdb: the same variables every package's tests read).

// dsn is a server engine's DSN from the environment.
func dsn(e string) string { return testdb.DSN(e) }

// loaded is one project stored in every SQL engine.
type loaded struct {
	p   *schema.Project
	m   *mapping.Mapping
	dbs []*store.DB
}

// load stores p in every SQL engine of names. Close it when done.
func load(ctx context.Context, names []string, p *schema.Project) (*loaded, error) {
	l := &loaded{p: p, m: mapping.Default(schema.New())}
	for _, name := range names {
		db, err := store.Open(ctx, name, dsn(name))
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("open %s: %w", name, err)
		}
		if err := store.Load(ctx, db, l.m, p); err != nil {
			_ = db.Close()
			l.Close()
			return nil, fmt.Errorf("load into %s: %w", name, err)
		}
		l.dbs = append(l.dbs, db)
	}
	return l, nil
}

// Close closes every database.
func (l *loaded) Close() error {
	var errs []error
	for _, db := range l.dbs {
		errs = append(errs, db.Close())
	}
	l.dbs = nil
	return errors.Join(errs...)
}

// result is the ids one engine matched.
type result struct {
	engine string
	ids    []int64
}

// evalIDs runs q with the closure evaluator over the objects of p, both
// ways: optimised and plain (eval.WithoutOptimizations); the two must
// match the same objects.
func evalIDs(q *typecheck.Query, p *schema.Project) ([]int64, error) {
	opt, err := evalIDsWith(q, p)
	if err != nil {
		return nil, err
	}
	plain, err := evalIDsWith(q, p, eval.WithoutOptimizations())
	if err != nil {
		return nil, fmt.Errorf("plain: %w", err)
	}
	if !slices.Equal(opt, plain) {
		return nil, fmt.Errorf("the optimised evaluator matches %v, the plain one %v", opt, plain)
	}
	return opt, nil
}

func evalIDsWith(q *typecheck.Query, p *schema.Project, opts ...eval.Option) ([]int64, error) {
	prog, err := eval.Compile(q, append(opts, eval.WithUserRefs(p.Users...))...)
	if err != nil {
		return nil, err
	}
	ids := []int64{}
	for _, o := range p.Objects(q.Context) {
		if prog.Match(o) {
			id, _ := schema.ObjectID(o)
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// refIDs runs q with the reference interpreter over the objects of p.
func refIDs(q *typecheck.Query, p *schema.Project) ([]int64, error) {
	in := &refeval.Interp{Users: p.UserLogins()}
	ids := []int64{}
	for _, o := range p.Objects(q.Context) {
		ok, err := in.Match(q, o)
		if err != nil {
			return nil, err
		}
		if ok {
			id, _ := schema.ObjectID(o)
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// run runs q on every engine: the evaluator first, then the reference
// interpreter (when ref), then every loaded SQL engine.
func (l *loaded) run(ctx context.Context, q *typecheck.Query, ref bool) ([]result, error) {
	ids, err := evalIDs(q, l.p)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	out := []result{{"eval", ids}}
	if ref {
		ids, err := refIDs(q, l.p)
		if err != nil {
			return nil, fmt.Errorf("refeval: %w", err)
		}
		out = append(out, result{"refeval", ids})
	}
	foldSafe := fuzz.LowerFoldSafe(q, l.p)
	for _, db := range l.dbs {
		if _, lite := db.Dialect.(compile.SQLite); !lite && !foldSafe {
			continue // lower() folds a few runes otherwise (docs/sql.md)
		}
		// Both forms: for a whole set and for a page (compile.Purpose).
		for _, purpose := range []compile.Purpose{compile.WholeSet, compile.Page} {
			name := db.Dialect.Name()
			if purpose == compile.Page {
				name += " page"
			}
			s, err := compile.CompileFor(q, db.Dialect, l.m, purpose)
			if errors.Is(err, compile.ErrUnrepresentable) {
				break // a value this engine cannot hold: a documented refusal
			}
			if err != nil {
				return nil, fmt.Errorf("compile for %s: %w", name, err)
			}
			ids, err := store.RunSQL(ctx, db.SQL, s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w\n%s\nargs %v", name, err, s.Where, s.Args)
			}
			if s.Count != nil {
				// The count from the elements' side counts the same rows.
				var n int64
				if err := db.SQL.QueryRowContext(ctx, s.Count.SQL, s.Count.Args...).Scan(&n); err != nil {
					return nil, fmt.Errorf("%s count: %w\n%s\nargs %v", name, err, s.Count.SQL, s.Count.Args)
				}
				if n != int64(len(ids)) {
					return nil, fmt.Errorf("%s: the count from the elements' side is %d, the WHERE selects %d\n%s\nargs %v", name, n, len(ids), s.Count.SQL, s.Count.Args)
				}
			}
			out = append(out, result{name, ids})
		}
	}
	return out, nil
}

// agree returns "" when every engine matched the same ids, else a report.
func agree(rs []result) string {
	for _, r := range rs[1:] {
		if !slices.Equal(r.ids, rs[0].ids) {
			var b strings.Builder
			b.WriteString("engines disagree:")
			for _, r := range rs {
				fmt.Fprintf(&b, "\n  %-8s %v", r.engine, r.ids)
			}
			return b.String()
		}
	}
	return ""
}

// dialects are the three SQL dialects.
func dialects() []compile.Dialect {
	return []compile.Dialect{compile.Postgres{}, compile.SQLite{}, compile.MySQL{}}
}

var pgParam = regexp.MustCompile(`\$([0-9]+)`)

// placeholders checks that the SQL text of s has one placeholder per
// argument: for PostgreSQL $1..$n each once, in order; for the others as
// many `?` as arguments. The mapping's identifiers hold neither.
func placeholders(s *compile.SQL) error {
	if _, ok := s.Dialect.(compile.Postgres); ok {
		ms := pgParam.FindAllStringSubmatch(s.Where, -1)
		if len(ms) != len(s.Args) {
			return fmt.Errorf("%d placeholders, %d arguments: %s", len(ms), len(s.Args), s.Where)
		}
		for i, m := range ms {
			if n, _ := strconv.Atoi(m[1]); n != i+1 {
				return fmt.Errorf("placeholder %d is $%d: %s", i+1, n, s.Where)
			}
		}
		return nil
	}
	if n := strings.Count(s.Where, "?"); n != len(s.Args) {
		return fmt.Errorf("%d placeholders, %d arguments: %s", n, len(s.Args), s.Where)
	}
	return nil
}

// compileAll compiles q for every dialect and checks its placeholders.
func compileAll(q *typecheck.Query) error {
	m := mapping.Default(schema.New())
	for _, d := range dialects() {
		s, err := compile.Compile(q, d, m)
		if err != nil {
			if errors.Is(err, compile.ErrUnrepresentable) {
				continue // a value this engine cannot hold: a documented refusal
			}
			return fmt.Errorf("compile for %s: %w", d.Name(), err)
		}
		if err := placeholders(s); err != nil {
			return fmt.Errorf("%s: %w", d.Name(), err)
		}
	}
	return nil
}

// pool is a few generated projects loaded once into the database servers,
// for the properties that run every case on them too: loading a project
// into a server per case would be far slower than running the queries.
type pool []*loaded

// poolSize is the number of projects of a pool.
const poolSize = 6

// newPool loads poolSize generated projects into every configured server;
// it returns nil when none is configured (and says so in the log).
func newPool(t *testing.T) pool {
	t.Helper()
	servers := testdb.Servers(t) // CROQL_REQUIRE_DB makes a missing server a failure
	if len(servers) == 0 {
		t.Logf("no database server: set %s and %s to run these properties on PostgreSQL and MariaDB too", testdb.EnvPostgres, testdb.EnvMySQL)
		return nil
	}
	var p pool
	for i := range poolSize {
		l, err := load(context.Background(), servers, project(int64(i)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		p = append(p, l)
	}
	return p
}
