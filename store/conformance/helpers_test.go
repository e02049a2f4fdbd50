package compile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
	"github.com/croql/croql/typecheck"
)

// root is the repository root.
func root(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// clock is the fixed 'today' of every test: 2024-06-15 12:00 UTC.
func clock() time.Time { return time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC) }

// checkOpts says how a query is checked.
type checkOpts struct {
	context string
	edition schema.Edition
	users   map[string]int64 // nil: mentions stay unresolved
	fold    bool
	maxCost float64 // croql.WithMaxCost: 0 the default budget, -1 none
}

// check checks src and fails the test on an error diagnostic.
func check(t testing.TB, src string, o checkOpts) *typecheck.Query {
	t.Helper()
	q, err := tryCheck(src, o)
	require.NoError(t, err, "query %q", src)
	return q
}

type diagError struct{ diags diag.List }

func (e diagError) Error() string {
	var b strings.Builder
	for _, d := range e.diags {
		b.WriteString(d.Message + "; ")
	}
	return b.String()
}

func tryCheck(src string, o checkOpts) (*typecheck.Query, error) {
	if o.context == "" {
		o.context = croql.Strings
	}
	opts := []croql.Option{croql.WithEdition(o.edition), croql.WithClock(clock), croql.WithFoldContains(o.fold), croql.WithMaxCost(o.maxCost)}
	if o.users != nil {
		opts = append(opts, croql.WithUserIDs(o.users))
	}
	env, err := croql.NewEnv(o.context, opts...)
	if err != nil {
		return nil, err
	}
	q, diags := env.Check(src)
	if diags.HasErrors() {
		return nil, diagError{diags}
	}
	return q, nil
}

// evalIDs runs q with the evaluator over p.
func evalIDs(t testing.TB, q *typecheck.Query, p *schema.Project) []int64 {
	t.Helper()
	prog, err := eval.Compile(q, eval.WithUserRefs(p.Users...))
	require.NoError(t, err)
	ids := []int64{}
	for _, o := range p.Objects(q.Context) {
		if prog.Match(o) {
			id, ok := schema.ObjectID(o)
			require.True(t, ok)
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// loadFixture reads a project of testdata/fixtures.
func loadFixture(t testing.TB, name string) *schema.Project {
	t.Helper()
	f, err := os.Open(filepath.Join(root(t), "testdata", "fixtures", name+".json"))
	require.NoError(t, err)
	defer f.Close()
	p, err := schema.ReadProject(f)
	require.NoError(t, err)
	return p
}

// goodCases returns the corpus cases that are valid queries.
func goodCases(t testing.TB) []corpus.Case {
	t.Helper()
	all, err := corpus.Load(filepath.Join(root(t), "testdata", "corpus"))
	require.NoError(t, err)
	return corpus.Good(all)
}

func caseOpts(c corpus.Case) checkOpts {
	o := checkOpts{context: c.Context()}
	if c.Edition() == "enterprise" {
		o.edition = schema.Enterprise
	}
	if c.Get("fold") == "true" {
		o.fold = true
	}
	return o
}

// engines lists the engines a test runs on (internal/testdb): sqlite, then
// postgres and mysql when their DSN is set; CROQL_REQUIRE_DB makes a
// missing one a failure.
func engines(t testing.TB) []string {
	t.Helper()
	return testdb.Engines(t)
}

// dsnOf is engine's DSN from the environment ("" for sqlite).
func dsnOf(engine string) string { return testdb.DSN(engine) }

// openLoaded opens a scratch database of engine, loads p with the default
// mapping, and closes (drops) it when the test ends.
func openLoaded(t testing.TB, engineName string, p *schema.Project) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, engineName, dsnOf(engineName))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	m := mapping.Default(schema.New())
	require.NoError(t, store.Load(ctx, db, m, p))
	return db
}

// runSQL compiles q for db's dialect and runs it.
func runSQL(t testing.TB, db *store.DB, q *typecheck.Query) []int64 {
	t.Helper()
	// The mapping is built for the query's catalog.
	m := mapping.Default(catalogOf(q))
	var whole []int64
	for _, purpose := range purposes {
		s, err := compile.CompileFor(q, db.Dialect, m, purpose)
		require.NoError(t, err, "query %q", q.Source)
		ids, err := runPurpose(context.Background(), db, s, purpose)
		require.NoError(t, err, "query %q (%s)\n%s\n%v", q.Source, purpose, s.Where, s.Args)
		if purpose == compile.WholeSet {
			whole = ids
		} else {
			assert.Equal(t, whole, ids, "query %q: the %s form selects other rows than the whole-set form\n%s\n%v", q.Source, purpose, s.Where, s.Args)
		}
	}
	return whole
}

// purposes are the compiler's purposes: the differential tests run both
// forms of every query.
var purposes = []compile.Purpose{compile.WholeSet, compile.Page}

// runPurpose runs s as its purpose is meant to run: a WholeSet query as
// one Select; a Page query as Select too (the form must select the same
// rows without a limit) and as SelectLimit(testPage), which must give the
// first of them.
func runPurpose(ctx context.Context, db *store.DB, s *compile.SQL, purpose compile.Purpose) ([]int64, error) {
	ids, err := store.RunSQL(ctx, db.SQL, s)
	if err == nil && s.Count != nil {
		err = checkCount(ctx, db, s, ids)
	}
	if err != nil || purpose == compile.WholeSet {
		return ids, err
	}
	q, args := s.SelectLimit(testPage)
	first, err := store.RunSelect(ctx, db.SQL, s.Dialect, q, args)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(first, ids[:min(len(ids), testPage)]) {
		return nil, fmt.Errorf("the first %d rows are %v, but the whole list starts %v", testPage, first, ids[:min(len(ids), testPage)])
	}
	return ids, nil
}

// checkCount runs s's Count, the count from the elements' side, which
// must be the number of rows its WHERE selects, ids.
func checkCount(ctx context.Context, db *store.DB, s *compile.SQL, ids []int64) error {
	var n int64
	if err := db.SQL.QueryRowContext(ctx, s.Count.SQL, s.Count.Args...).Scan(&n); err != nil {
		return fmt.Errorf("count: %w\n%s", err, s.Count.SQL)
	}
	if n != int64(len(ids)) {
		return fmt.Errorf("the count from the elements' side is %d, the WHERE selects %d rows\n%s\n%v", n, len(ids), s.Count.SQL, s.Count.Args)
	}
	return nil
}

// testPage is the page size of runPurpose.
const testPage = 3

// catalogOf returns a catalog that holds q's context: the mapping is keyed
// by object names, which every catalog built by schema.New shares.
var catalogOnce = sync.OnceValue(schema.New)

func catalogOf(*typecheck.Query) *schema.Catalog { return catalogOnce() }

// demoProject is demo.Default(), built once per test binary.
var demoProject = sync.OnceValue(demo.Default)
