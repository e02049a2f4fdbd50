package compile_test

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
	"github.com/croql/croql/typecheck"
)

// benchStrings is the size of the benchmark project.
const benchStrings = 100_000

// benchEnv holds the benchmark project and its databases, built on first
// use and dropped by TestMain.
type benchEnv struct {
	mu sync.Mutex
	// strings is the project's size (benchStrings when 0).
	strings int
	p       *schema.Project
	dbs     map[string]*store.DB
}

func (e *benchEnv) project() *schema.Project {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p == nil {
		n := e.strings
		if n == 0 {
			n = benchStrings
		}
		e.p = demo.Generate(demo.Options{Strings: n, Seed: 1})
	}
	return e.p
}

// db returns the benchmark project loaded in engine name, or skips.
func (e *benchEnv) db(b *testing.B, name string) *store.DB {
	if name != "sqlite" && dsnOf(name) == "" {
		b.Skipf("%s not benchmarked: set %s", name, testdb.Env(name))
	}
	p := e.project()
	e.mu.Lock()
	defer e.mu.Unlock()
	if db := e.dbs[name]; db != nil {
		return db
	}
	ctx := context.Background()
	db, err := store.Open(ctx, name, dsnOf(name))
	require.NoError(b, err)
	if err := store.Load(ctx, db, mapping.Default(schema.New()), p); err != nil {
		db.Close()
		require.NoError(b, err)
	}
	if e.dbs == nil {
		e.dbs = map[string]*store.DB{}
	}
	e.dbs[name] = db
	return db
}

func (e *benchEnv) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, db := range e.dbs {
		db.Close()
	}
}

var bench = &benchEnv{}

func TestMain(m *testing.M) {
	code := m.Run()
	bench.close()
	benchSized.close()
	os.Exit(code)
}

// benchPattern is a seed pattern with the SQL a person would write for
// the same question over the reference tables (? placeholders).
//
// hand reads the root table, as the compiled query does and as a person
// who wants the matching rows (not only their ids) writes it. Where an
// earlier version of this benchmark read only the element table
// (`SELECT DISTINCT string_id FROM comments WHERE ...`: a cheaper question
// that trusts every element's foreign key to name an existing root row),
// that query is kept as child, and reported beside it (docs/sql.md,
// "Benchmarks").
type benchPattern struct {
	name, context, query string
	hand                 string
	child                string
	args                 []any
}

// benchPatterns picks values that occur in p.
func benchPatterns(p *schema.Project) []benchPattern {
	s := p.Strings[len(p.Strings)/2]
	var fileID int64 = 1
	if s.File != nil {
		fileID = s.File.ID
	}
	alice := p.UserIDs()["alice"]
	return []benchPattern{
		{"key-and-file", "strings", `identifier = ` + strconv.Quote(s.Identifier) + ` and id of file = ` + strconv.FormatInt(fileID, 10),
			`SELECT id FROM strings WHERE identifier = ? AND file_id = ? ORDER BY id`, "", []any{s.Identifier, fileID}},
		{"file-unresolved-issues", "strings", `id of file = ` + strconv.FormatInt(fileID, 10) + ` and count of comments where (has unresolved issue) > 0`,
			`SELECT DISTINCT s.id FROM strings s JOIN comments c ON c.string_id = s.id WHERE s.file_id = ? AND c.has_unresolved_issue ORDER BY s.id`, "", []any{fileID}},
		{"exactly-3-translations", "strings", `count of translations = 3`,
			`SELECT s.id FROM strings s JOIN (SELECT string_id FROM string_translations GROUP BY string_id HAVING COUNT(*) = ?) g ON g.string_id = s.id ORDER BY s.id`,
			`SELECT string_id FROM string_translations GROUP BY string_id HAVING COUNT(*) = ? ORDER BY string_id`, []any{int64(3)}},
		{"commented-by-user", "strings", `count of comments where (user = @user:"alice") > 0`,
			`SELECT DISTINCT s.id FROM strings s JOIN comments c ON c.string_id = s.id WHERE c.user_id = ? ORDER BY s.id`,
			`SELECT DISTINCT string_id FROM comments WHERE user_id = ? ORDER BY string_id`, []any{alice}},
		{"translated-not-approved", "strings", `count of languages summary where (is translated and not is approved) > 0`,
			`SELECT DISTINCT s.id FROM strings s JOIN languages_summary ls ON ls.string_id = s.id WHERE ls.is_translated AND NOT ls.is_approved ORDER BY s.id`,
			`SELECT DISTINCT string_id FROM languages_summary WHERE is_translated AND NOT is_approved ORDER BY string_id`, nil},
		{"added-in-period", "strings", `added between '2024-01-01 00:00:00' and '2024-01-31 23:59:59'`,
			`SELECT id FROM strings WHERE added BETWEEN ? AND ? ORDER BY id`, "", []any{int64(1704067200), int64(1706745599)}},
		{"hidden-non-duplicates-with-translations", "strings", `is hidden and not is duplicate and count of translations > 0`,
			`SELECT s.id FROM strings s WHERE s.is_hidden AND NOT s.is_duplicate AND EXISTS (SELECT 1 FROM string_translations st WHERE st.string_id = s.id) ORDER BY s.id`, "", nil},
		{"no-approved-or-voted-in-de", "strings", `count of translations where (language = @language:"de" and (count of approvals > 0 or count of votes > 0)) = 0`,
			`SELECT s.id FROM strings s WHERE NOT EXISTS (SELECT 1 FROM string_translations st JOIN translations t ON t.id = st.translation_id ` +
				`WHERE st.string_id = s.id AND t.language = ? AND (EXISTS (SELECT 1 FROM approvals a WHERE a.translation_id = t.id) ` +
				`OR EXISTS (SELECT 1 FROM votes v WHERE v.translation_id = t.id))) ORDER BY s.id`, "", []any{"de"}},
		{"tm-used-record", "tm", `count of records where (usageCount > 0) > 0`,
			`SELECT DISTINCT g.id FROM tm_segments g JOIN tm_records r ON r.segment_id = g.id WHERE r.usage_count > ? ORDER BY g.id`,
			`SELECT DISTINCT segment_id FROM tm_records WHERE usage_count > ? ORDER BY segment_id`, []any{int64(0)}},
	}
}

// numbered rewrites ? placeholders as $1, $2, ... for PostgreSQL.
func numbered(d compile.Dialect, q string) string {
	if _, ok := d.(compile.Postgres); !ok {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func queryIDs(b *testing.B, db *store.DB, q string, args []any) []int64 {
	return idsOf(b, db.SQL, q, args)
}

// connIDs is queryIDs on one connection.
func connIDs(b *testing.B, conn *sql.Conn, q string, args []any) []int64 {
	return idsOf(b, conn, q, args)
}

// idsOf runs q on a *sql.DB or *sql.Conn and returns the ids it selects.
func idsOf(b *testing.B, on interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string, args []any) []int64 {
	rows, err := on.QueryContext(context.Background(), q, args...)
	require.NoError(b, err, q)
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		require.NoError(b, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(b, rows.Err())
	return ids
}

func benchCheck(b *testing.B, p *schema.Project, bp benchPattern) *typecheck.Query {
	return check(b, bp.query, checkOpts{context: bp.context, users: p.UserIDs()})
}

// BenchmarkSeedPatterns times, over a generated 100,000-string project,
// each seed pattern's compiled SQL against SQL written by hand for the
// same question (both return the same ids, and the evaluator's, checked
// first) in SQLite, PostgreSQL and MySQL/MariaDB, and the in-memory
// evaluator over the same objects. Each iteration runs the compiled and
// the hand-written query (and the element-table query, where a pattern
// has one) back to back, so that they see the same machine load; the
// reported metrics are the medians of each (compiled-ms, hand-ms,
// child-ms) and the ratios (compiled/hand-ms, compiled/child-ms), in wall
// time and, where it can be read (engineCPU), in the engine's CPU time
// (the same names with cpums), which moves far less with the load of a
// shared machine. All queries of a pattern run on one connection.
//
//	CROQL_POSTGRES_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	CROQL_MYSQL_DSN='root@tcp(127.0.0.1:3306)/test' \
//	  go test ./store/conformance -run '^$' -bench SeedPatterns -benchtime 11x -timeout 30m
func BenchmarkSeedPatterns(b *testing.B) {
	p := bench.project()
	pats := benchPatterns(p)
	m := mapping.Default(schema.New())
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		b.Run(name, func(b *testing.B) {
			db := bench.db(b, name)
			b.Logf("%s: %s", name, engineVersion(b, db))
			for _, bp := range pats {
				q := benchCheck(b, p, bp)
				s, err := compile.Compile(q, db.Dialect, m)
				require.NoError(b, err)
				hand := numbered(db.Dialect, bp.hand)
				got := queryIDs(b, db, s.Select(), s.Args)
				require.Equal(b, got, queryIDs(b, db, hand, bp.args), "%s: the hand-written SQL answers another question", bp.name)
				child := numbered(db.Dialect, bp.child)
				if child != "" {
					require.Equal(b, got, queryIDs(b, db, child, bp.args), "%s: the element-table SQL answers another question", bp.name)
				}
				require.Equal(b, evalIDs(b, q, p), append([]int64{}, got...), "%s", bp.name)
				b.Run(bp.name, func(b *testing.B) {
					ctx := context.Background()
					conn, err := db.SQL.Conn(ctx)
					require.NoError(b, err)
					defer conn.Close()
					cpu, err := engineCPU(ctx, db.Dialect, conn)
					if err != nil {
						b.Logf("%s: no CPU time: %v", name, err)
					}
					type times struct{ wall, cpu []time.Duration }
					var tc, th, tk times
					timed := func(q string, args []any, ts *times) func() {
						return func() {
							var c0 time.Duration
							if cpu != nil {
								c0 = cpu()
							}
							t0 := time.Now()
							connIDs(b, conn, q, args)
							ts.wall = append(ts.wall, time.Since(t0))
							if cpu != nil {
								ts.cpu = append(ts.cpu, cpu()-c0)
							}
						}
					}
					runs := []func(){timed(s.Select(), s.Args, &tc), timed(hand, bp.args, &th)}
					if child != "" {
						runs = append(runs, timed(child, bp.args, &tk))
					}
					for i := 0; b.Loop(); i++ {
						// Rotate which goes first.
						for j := range runs {
							runs[(i+j)%len(runs)]()
						}
					}
					report := func(unit string, c, h, k []time.Duration) {
						mc, mh := median(c), median(h)
						b.ReportMetric(ms(mc), "compiled-"+unit)
						b.ReportMetric(ms(mh), "hand-"+unit)
						b.ReportMetric(float64(mc)/float64(mh), "compiled/hand-"+unit)
						if child != "" {
							mk := median(k)
							b.ReportMetric(ms(mk), "child-"+unit)
							b.ReportMetric(float64(mc)/float64(mk), "compiled/child-"+unit)
						}
					}
					report("ms", tc.wall, th.wall, tk.wall)
					if cpu != nil {
						report("cpums", tc.cpu, th.cpu, tk.cpu)
					}
				})
			}
		})
	}
	b.Run("eval", func(b *testing.B) {
		for _, bp := range pats {
			q := benchCheck(b, p, bp)
			prog, err := eval.Compile(q, eval.WithUserRefs(p.Users...))
			require.NoError(b, err)
			objs := p.Objects(q.Context)
			b.Run(bp.name, func(b *testing.B) {
				var te []time.Duration
				for b.Loop() {
					t0 := time.Now()
					ids := []int64{}
					for _, o := range objs {
						if prog.Match(o) {
							id, _ := schema.ObjectID(o)
							ids = append(ids, id)
						}
					}
					te = append(te, time.Since(t0))
					_ = slices.Max(append(ids, 0))
				}
				b.ReportMetric(ms(median(te)), "eval-ms")
			})
		}
	})
}

// engineVersion is the server's version, for the benchmark's log.
func engineVersion(b *testing.B, db *store.DB) string {
	q := "SELECT version()"
	if _, ok := db.Dialect.(compile.SQLite); ok {
		q = "SELECT sqlite_version()"
	}
	var v string
	require.NoError(b, db.SQL.QueryRowContext(context.Background(), q).Scan(&v))
	return v
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// BenchmarkCompile times compiling a checked seed pattern to SQL.
func BenchmarkCompile(b *testing.B) {
	m := mapping.Default(schema.New())
	q := check(b, `count of translations where (language = @language:"de" and (count of approvals > 0 or count of votes > 0)) = 0 and id of file = 7`, checkOpts{})
	for _, d := range dialects {
		b.Run(d.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := compile.Compile(q, d, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
