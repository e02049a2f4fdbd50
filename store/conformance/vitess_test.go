package compile_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
	"github.com/croql/croql/typecheck"
)

// TestVitessDifferential runs the differential suite (the conformance
// corpus, its seed patterns, and the edge queries, with @user mentions
// resolved to ids and left to the users table) on a 2-shard Vitess
// keyspace (CROQL_VITESS_DSN; .ci/vitess.sh), each query as a whole set
// and as a first page. Every answer must be the evaluator's ids, whether
// vtgate answers it or the coordinator does (store.Exec: a shape vtgate
// refuses, or one the compiler will not send because vtgate answers it
// wrongly, compile.ErrSharded). An error or a wrong answer fails the
// test. The log counts who answered, and -v lists the queries the
// coordinator answered, by the reason vtgate did not.
func TestVitessDifferential(t *testing.T) {
	testdb.Need(t, "vitess")
	qs := vitessSuite(t)
	for pname, p := range projects(t) {
		vt := openLoaded(t, "vitess", p)
		lite := openLoaded(t, "sqlite", p)
		t.Run(pname, func(t *testing.T) {
			var byVtgate, byCoordinator, checks, failed int
			why := map[string][]string{}
			run := func(x suiteQuery, q *typecheck.Query, want []int64, how string) {
				for _, purpose := range purposes {
					checks++
					name := x.name + how + " (" + purpose.String() + ")"
					got, first, coordinated, err := execVitess(vt, q, purpose)
					switch {
					case err != nil:
						failed++
						t.Errorf("%s: %q on vitess: %v", name, x.src, err)
					case !slices.Equal(got, want):
						failed++
						t.Errorf("%s: %q on vitess: %d ids, want %d (the evaluator's)\n got %v\nwant %v", name, x.src, len(got), len(want), got, want)
					case first != nil && !slices.Equal(first, want[:min(len(want), testPage)]):
						failed++
						t.Errorf("%s: %q on vitess: the first page is %v, want %v", name, x.src, first, want[:min(len(want), testPage)])
					case coordinated:
						byCoordinator++
						class, err := vitessRefusal(vt, q, purpose, want)
						if err != nil {
							failed++
							t.Errorf("%s: %q: %v", name, x.src, err)
						}
						why[class] = append(why[class], name)
					default:
						byVtgate++
					}
				}
			}
			for _, x := range qs {
				o := x.opts
				o.users = p.UserIDs()
				q, err := tryCheck(x.src, o)
				if err != nil {
					// A login the project lacks: vitess must agree with
					// SQLite (the mention stays unresolved).
					o.users = nil
					if q, err = tryCheck(x.src, o); err != nil {
						t.Errorf("%s: %q does not check: %v", x.name, x.src, err)
						continue
					}
					want, _, err := tryRunSQL(lite, q, compile.WholeSet)
					if err != nil {
						t.Fatalf("%s on sqlite: %v", x.name, err)
					}
					run(x, q, want, " (unresolved mention)")
					continue
				}
				want := evalIDs(t, q, p)
				run(x, q, want, "")
				o.users = nil
				run(x, check(t, x.src, o), want, " (mentions left to the users table)")
			}
			var classes []string
			for c, l := range why {
				classes = append(classes, fmt.Sprintf("%d %s", len(l), c))
				sort.Strings(l)
				t.Logf("by the coordinator, %s: %s", c, strings.Join(l, ", "))
			}
			sort.Strings(classes)
			t.Logf("vitess, project %s: %d checks, %d equal to the evaluator (%d answered by vtgate, %d by the coordinator: %s), %d wrong or failed",
				pname, checks, byVtgate+byCoordinator, byVtgate, byCoordinator, strings.Join(classes, "; "), failed)
		})
	}
}

// execVitess runs q on db for purpose p with store.Exec: the whole
// list, and for the Page purpose also its first testPage rows, which must
// be the whole list's first. coordinated tells whether the coordinator
// answered either.
func execVitess(db *store.DB, q *typecheck.Query, p compile.Purpose) (ids, first []int64, coordinated bool, err error) {
	ctx := context.Background()
	m := mapping.Default(catalogOf(q))
	if ids, coordinated, err = store.Exec(ctx, db.SQL, db.Dialect, m, q, p, 0); err != nil || p != compile.Page {
		return ids, nil, coordinated, err
	}
	first, c2, err := store.Exec(ctx, db.SQL, db.Dialect, m, q, p, testPage)
	return ids, first, coordinated || c2, err
}

// vitessRefusal names why vtgate did not answer q for purpose p: the
// compiler's refusal, vtgate's error on the statement, or the choice of
// the coordinator for a statement that joins across shards. vtgate's
// answer to such a statement, which croql serve still sends, must be want
// (and its first page want's) where vtgate answers it.
func vitessRefusal(db *store.DB, q *typecheck.Query, p compile.Purpose, want []int64) (string, error) {
	s, cerr := compile.CompileFor(q, db.Dialect, mapping.Default(catalogOf(q)), p)
	ids, first, err := tryRunSQL(db, q, p)
	switch {
	case cerr == nil && s.CrossShard && err == nil:
		if !slices.Equal(ids, want) {
			return "", fmt.Errorf("vtgate's answer to the statement the coordinator was chosen for: %d ids, want %d", len(ids), len(want))
		}
		if first != nil && !slices.Equal(first, want[:min(len(want), testPage)]) {
			return "", fmt.Errorf("vtgate's first page of the statement the coordinator was chosen for: %v, want %v", first, want[:min(len(want), testPage)])
		}
		return "by choice, a join across shards (vtgate answers it too, as the evaluator, a query to the shards per row)", nil
	case err == nil:
		return "vtgate answered on a second try", nil
	case cerr == nil && s.CrossShard:
		return "by choice, a join across shards; and " + refusal(err), nil
	}
	return refusal(err), nil
}

// suiteQuery is a query of the Vitess differential suite.
type suiteQuery struct {
	name, src string
	opts      checkOpts
}

// vitessSuite is the Vitess differential suite's queries: the good corpus
// cases (with the seed patterns), the edge queries, and vitessQueries.
func vitessSuite(t *testing.T) []suiteQuery {
	var qs []suiteQuery
	for _, c := range goodCases(t) {
		qs = append(qs, suiteQuery{name: c.Name, src: c.Query(), opts: caseOpts(c)})
	}
	for i, e := range edgeQueries {
		qs = append(qs, suiteQuery{name: fmt.Sprintf("edge-%d", i), src: e.query, opts: checkOpts{context: e.context, fold: e.fold, edition: schema.Enterprise}})
	}
	for i, e := range vitessQueries {
		qs = append(qs, suiteQuery{name: fmt.Sprintf("vitess-%d", i), src: e.query, opts: checkOpts{context: e.context, edition: schema.Enterprise}})
	}
	return qs
}

// vitessQueries are the shapes the Vitess dialect writes in forms of its
// own (uncorrelated anti-joins split by disjunct, a referenced object's
// field, `with` on a referenced object and an unresolved mention as
// semi-joins), each beside the conditions vtgate has been seen to drop or
// mis-route them with: an OR with a correlated subquery, a negation, a
// nesting in another subquery.
var vitessQueries = []struct{ context, query string }{
	{"strings", `name of branch = "main" or count of comments > 0`},
	{"strings", `not (name of file > "b") or translations with (language = "de")`},
	{"strings", `title of file != "App" and count of translations = 0`},
	{"strings", `not (title of file contains "p") or is hidden`},
	{"strings", `translations with (login of user != "bob")`},
	{"strings", `translations with (login of user != "bob" and count of votes > 0)`},
	{"strings", `translations with (login of user = "bob" or count of votes > 0)`},
	{"strings", `translations with (not (login of user = "bob") or count of approvals > 0)`},
	{"strings", `count of translations where (count of approvals > 0 or login of user = "bob") = 0`},
	{"strings", `count of translations where ((language = "de" or language = "fr") and count of votes > 0) = 0`},
	{"strings", `count of translations where (language = "de" and (count of approvals > 0 or count of votes > 0) and login of user != "bob") = 0`},
	{"strings", `count of translations where (count of votes where (is up) > 0 or count of votes where (is down) > 0) = 0 and name of file != "x"`},
	{"strings", `count of translations where (user = @user:"alice" or count of votes > 0) = 0`},
	{"strings", `translations with (user = @user:"alice") or count of comments > 0`},
	{"strings", `comments with (user = @user:"bob") and not (name of branch = "main")`},
	{"translations", `user = @user:"alice" or count of votes where (user = @user:"bob") > 0`},
	{"translations", `not (login of user = "bob") or count of approvals > 0`},
	{"strings", `not (file with (title = "App")) or count of comments > 0`},
	{"strings", `translations with (user with (login = "bob") or count of votes > 0)`},
	{"strings", `comments with (not (user with (id > 2)))`},
	{"strings", `count of translations where (user with (login = "bob")) = 0 and branch with (name = "main")`},
	{"strings", `comments with (user != @user:"alice" or count of translations > 1)`},
	{"strings", `count of comments where (not (user = @user:"alice")) = 0 or count of translations > 0`},
	{"translations", `count of votes where (user != @user:"bob") > 0 or user = @user:"alice"`},
}

// tryRunSQL compiles q for db's dialect and purpose and runs its
// statement as it is, without the coordinator: the whole list, and for
// the Page purpose also its first testPage rows (SelectLimit), which
// must be the whole list's first.
func tryRunSQL(db *store.DB, q *typecheck.Query, purpose compile.Purpose) (ids, first []int64, err error) {
	ctx := context.Background()
	s, err := compile.CompileFor(q, db.Dialect, mapping.Default(catalogOf(q)), purpose)
	if err != nil {
		return nil, nil, err
	}
	if ids, err = store.RunSelect(ctx, db.SQL, s.Dialect, s.Select(), s.Args); err != nil || purpose != compile.Page {
		return ids, nil, err
	}
	sq, args := s.SelectLimit(testPage)
	if first, err = store.RunSelect(ctx, db.SQL, s.Dialect, sq, args); err == nil && first == nil {
		first = []int64{}
	}
	return ids, first, err
}

var vtCode = regexp.MustCompile(`VT\d{5}: [^:(]*`)

// refusal names the class of a refused query's error.
func refusal(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, compile.ErrSharded):
		return "by the compiler (compile.ErrSharded)"
	case vtCode.MatchString(msg):
		return "by vtgate, " + strings.TrimSpace(vtCode.FindString(msg))
	case strings.Contains(msg, "invalid connection"):
		return "by vtgate, a panic in its planner (connection closed)"
	case strings.Contains(msg, "missing bind var"), strings.Contains(msg, "syntax error"):
		return "by vtgate, a statement it rewrote wrongly for the shards (missing bind var, syntax error)"
	}
	return "other: " + msg
}

// vitessBenchData is the generated project of the Vitess benchmarks
// (2,000 strings; CROQL_VITESS_BENCH_STRINGS sets another size), loaded
// into a scratch keyspace (CROQL_VITESS_DSN) and a scratch MariaDB
// database (CROQL_MYSQL_DSN), by engine name.
func vitessBenchData(b *testing.B) (*schema.Project, map[string]*store.DB) {
	testdb.Need(b, "vitess")
	testdb.Need(b, "mysql")
	ctx := context.Background()
	n := 2000
	if v := os.Getenv("CROQL_VITESS_BENCH_STRINGS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err, "CROQL_VITESS_BENCH_STRINGS")
	}
	b.Logf("a project of %d strings", n)
	p := demo.Generate(demo.Options{Strings: n, Seed: 1})
	dbs := map[string]*store.DB{}
	for _, e := range []string{"mysql", "vitess"} {
		db, err := store.Open(ctx, e, dsnOf(e))
		require.NoError(b, err)
		b.Cleanup(func() { _ = db.Close() })
		require.NoError(b, store.Load(ctx, db, mapping.Default(schema.New()), p))
		dbs[e] = db
	}
	return p, dbs
}

// BenchmarkVitessSeedPatterns times the seed patterns
// (testdata/corpus/seed_patterns.txt) on a 2-shard Vitess keyspace
// against one MariaDB, in one run, over a generated 2,000-string project,
// with @user mentions resolved to ids (as croql serve resolves them): one
// iteration runs every pattern once on each engine, as store.Run does
// (the coordinator answers on Vitess what vtgate refuses; the benchmark
// reports how many). It needs CROQL_VITESS_DSN and CROQL_MYSQL_DSN
// (CROQL_VITESS_BENCH_STRINGS: another size of project):
//
//	go test ./store/conformance -run '^$' -bench VitessSeedPatterns -benchtime 5x
func BenchmarkVitessSeedPatterns(b *testing.B) {
	ctx := context.Background()
	p, dbs := vitessBenchData(b)
	cases, err := corpus.LoadFile(filepath.Join(root(b), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(b, err)
	type pattern struct {
		name string
		q    *typecheck.Query
		took map[string]time.Duration // of the first run
	}
	var patterns []pattern
	coordinated := 0
	for _, c := range corpus.Good(cases) {
		if !strings.HasPrefix(c.Name, "seed-") {
			continue
		}
		o := caseOpts(c)
		o.users = p.UserIDs()
		q, err := tryCheck(c.Query(), o)
		require.NoError(b, err, c.Name)
		want := evalIDs(b, q, p)
		pt := pattern{name: c.Name, q: q, took: map[string]time.Duration{}}
		// The coordinator's answer on Vitess, for every pattern.
		start := time.Now()
		got, err := store.Coordinate(ctx, dbs["vitess"].SQL, dbs["vitess"].Dialect, mapping.Default(catalogOf(q)), q, 0)
		require.NoError(b, err, "%s by the coordinator", c.Name)
		pt.took["coordinator"] = time.Since(start)
		require.Equal(b, want, got, "%s by the coordinator", c.Name)
		for e, db := range dbs {
			start := time.Now()
			got, coord, err := store.Exec(ctx, db.SQL, db.Dialect, mapping.Default(catalogOf(q)), q, compile.WholeSet, 0)
			require.NoError(b, err, "%s on %s", c.Name, e)
			pt.took[e] = time.Since(start)
			require.Equal(b, want, got, "%s on %s", c.Name, e)
			if coord {
				require.Equal(b, "vitess", e, "%s: the coordinator answered on %s", c.Name, e)
				coordinated++
				b.Logf("answered by the coordinator on vitess: %s", c.Name)
			}
		}
		patterns = append(patterns, pt)
	}
	// Every pattern's first run, those Vitess spends most time on first.
	slow := slices.Clone(patterns)
	slices.SortFunc(slow, func(x, y pattern) int { return int(y.took["vitess"] - x.took["vitess"]) })
	for _, pt := range slow {
		b.Logf("%s: vitess %v, mariadb %v, the coordinator on vitess %v", pt.name, pt.took["vitess"].Round(time.Millisecond),
			pt.took["mysql"].Round(time.Millisecond), pt.took["coordinator"].Round(time.Millisecond))
	}
	var sum = map[string]time.Duration{}
	for _, pt := range patterns {
		for e, d := range pt.took {
			sum[e] += d
		}
		sum["best"] += min(pt.took["vitess"], pt.took["coordinator"])
	}
	b.Logf("first runs, each pattern by the faster of vtgate and the coordinator: %v", sum["best"].Round(time.Millisecond))
	b.Logf("first runs, all patterns: vitess %v, mariadb %v, the coordinator on vitess %v", sum["vitess"].Round(time.Millisecond),
		sum["mysql"].Round(time.Millisecond), sum["coordinator"].Round(time.Millisecond))
	for _, e := range []string{"mysql", "vitess"} {
		b.Run(e, func(b *testing.B) {
			for b.Loop() {
				for _, pt := range patterns {
					if _, err := store.Run(ctx, dbs[e].SQL, dbs[e].Dialect, mapping.Default(catalogOf(pt.q)), pt.q); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(patterns)), "patterns")
			b.ReportMetric(float64(coordinated), "by-the-coordinator")
		})
	}
}

// TestCoordinatorDifferential proves the coordinator (store.Coordinate,
// what answers on Vitess the forms vtgate refuses) on every available
// engine: every good corpus query and edge query, as a whole set and as
// a first page, selects the evaluator's ids.
func TestCoordinatorDifferential(t *testing.T) {
	qs := vitessSuite(t)
	ctx := context.Background()
	for pname, p := range projects(t) {
		for _, e := range engines(t) {
			if e == "vitess" {
				continue // TestVitessDifferential
			}
			db := openLoaded(t, e, p)
			t.Run(pname+"/"+e, func(t *testing.T) {
				n, unresolved := 0, 0
				for _, x := range qs {
					o := x.opts
					o.users = p.UserIDs()
					q, err := tryCheck(x.src, o)
					if err != nil {
						// A login the project lacks: the query checks with
						// the mention left unresolved, and the coordinator
						// answers as the engine's SQL does (the users
						// table has no such login).
						o.users = nil
						if q, err = tryCheck(x.src, o); err != nil {
							t.Errorf("%s: %q does not check: %v", x.name, x.src, err)
							continue
						}
						want, _, err := tryRunSQL(db, q, compile.WholeSet)
						require.NoError(t, err, "%s: %q", x.name, x.src)
						got, err := store.Coordinate(ctx, db.SQL, db.Dialect, mapping.Default(catalogOf(q)), q, 0)
						require.NoError(t, err, "%s: %q", x.name, x.src)
						require.Equal(t, want, got, "%s: %q (unresolved mention)", x.name, x.src)
						unresolved++
						continue
					}
					want := evalIDs(t, q, p)
					for _, users := range []bool{true, false} {
						if !users {
							o.users = nil
							q = check(t, x.src, o)
						}
						m := mapping.Default(catalogOf(q))
						got, err := store.Coordinate(ctx, db.SQL, db.Dialect, m, q, 0)
						require.NoError(t, err, "%s: %q", x.name, x.src)
						require.Equal(t, want, got, "%s: %q (mentions resolved: %v)", x.name, x.src, users)
						first, err := store.Coordinate(ctx, db.SQL, db.Dialect, m, q, testPage)
						require.NoError(t, err, "%s: %q", x.name, x.src)
						require.Equal(t, want[:min(len(want), testPage)], first, "%s: %q: the first page", x.name, x.src)
						n++
					}
				}
				t.Logf("coordinator on %s, project %s: %d queries equal to the evaluator, %d with a login the project lacks equal to the SQL's answer", e, pname, n, unresolved)
			})
		}
	}
}

// vtgateRefuses are queries of the edge list that vtgate refuses (its
// planner panics on the first; VT12001 on the others), which the
// coordinator answers on Vitess.
var vtgateRefuses = []struct{ context, query string }{
	{"strings", `name of branch = "main" or count of comments > 0`},
	{"strings", `count of translations > count of languages summary`},
	{"strings", `count of translations where (count of votes where (is up) > count of votes where (is down)) > 0`},
	{"strings", `labels with (is system) or count of labels where (title contains "a") = 2`},
	{"translations", `count of votes where (is up) > count of votes where (is down) or text contains "a"`},
	{"strings", `is hidden and count of translations > count of languages summary`},
}

// BenchmarkVitessCoordinator times the queries vtgate refuses
// (vtgateRefuses), over a generated 2,000-string project: answered by the
// coordinator on a 2-shard Vitess keyspace, and by the SQL on one MariaDB,
// in one run. It needs CROQL_VITESS_DSN and CROQL_MYSQL_DSN:
//
//	go test ./store/conformance -run '^$' -bench VitessCoordinator -benchtime 3x
func BenchmarkVitessCoordinator(b *testing.B) {
	ctx := context.Background()
	p, dbs := vitessBenchData(b)
	var qs []*typecheck.Query
	for _, x := range vtgateRefuses {
		q, err := tryCheck(x.query, checkOpts{context: x.context, edition: schema.Enterprise, users: p.UserIDs()})
		require.NoError(b, err, x.query)
		want := evalIDs(b, q, p)
		for e, db := range dbs {
			got, coordinated, err := store.Exec(ctx, db.SQL, db.Dialect, mapping.Default(catalogOf(q)), q, compile.WholeSet, 0)
			require.NoError(b, err, "%q on %s", x.query, e)
			require.Equal(b, want, got, "%q on %s", x.query, e)
			require.Equal(b, e == "vitess", coordinated, "%q on %s: answered by the coordinator", x.query, e)
		}
		qs = append(qs, q)
	}
	for _, e := range []string{"mysql", "vitess"} {
		b.Run(e, func(b *testing.B) {
			for b.Loop() {
				for _, q := range qs {
					if _, _, err := store.Exec(ctx, dbs[e].SQL, dbs[e].Dialect, mapping.Default(catalogOf(q)), q, compile.WholeSet, 0); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(qs)), "queries")
		})
	}
}
