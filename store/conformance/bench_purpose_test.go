package compile_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/corpus"
	"github.com/croql/croql/mapping"
)

// benchSized is the project of BenchmarkPurposes: CROQL_BENCH_STRINGS
// strings (benchStrings by default).
var benchSized = &benchEnv{strings: sizedStrings()}

func sizedStrings() int {
	n, err := strconv.Atoi(os.Getenv("CROQL_BENCH_STRINGS"))
	if err != nil || n <= 0 {
		return benchStrings
	}
	return n
}

// purposeTimeout bounds one measured query: a form that runs longer is
// reported as timed out and not run again.
const purposeTimeout = 10 * time.Second

// pageSize is the first page of the benchmark, the server's default limit.
const pageSize = 25

// BenchmarkPurposes measures, for every seed pattern of the corpus
// (testdata/corpus/seed_patterns.txt) over a generated project, both
// forms the compiler writes (compile.WholeSet and compile.Page) on both
// questions a server asks: the first page (`ORDER BY id LIMIT 25`) and the
// total (`SELECT COUNT(*)`). The metrics are medians of the engine's CPU
// time (engineCPU) in milliseconds: page-whole, page-page, total-whole,
// total-page (question-form). Each form's page and count are checked
// against the evaluator first. A query that runs longer than 10 s is
// reported as -1 and not repeated. The log of each engine ends with the
// table (pattern, the four figures) and the sums of the chosen forms.
//
//	CROQL_POSTGRES_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	  go test ./store/conformance -run '^$' -bench 'Purposes/(sqlite|postgres)$' -benchtime 5x -timeout 60m
//
// CROQL_BENCH_STRINGS sets the project's size (100,000 by default);
// CROQL_BENCH_PAGES_ONLY=1 measures the first pages only (the totals of a
// large project take minutes).
func BenchmarkPurposes(b *testing.B) {
	pagesOnly := os.Getenv("CROQL_BENCH_PAGES_ONLY") == "1"
	p := benchSized.project()
	all, err := corpus.LoadFile(filepath.Join(root(b), "testdata", "corpus", "seed_patterns.txt"))
	require.NoError(b, err)
	cases := corpus.Good(all)
	m := mapping.Default(catalogOnce())
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		b.Run(name, func(b *testing.B) {
			db := benchSized.db(b, name)
			ctx := context.Background()
			conn, err := db.SQL.Conn(ctx)
			require.NoError(b, err)
			defer conn.Close()
			cpu, err := engineCPU(ctx, db.Dialect, conn)
			require.NoError(b, err, "no CPU clock for %s", name)
			var table strings.Builder
			table.WriteString("| pattern | first page, whole-set form | first page, page form | total, whole-set form | total, page form |\n|---|---:|---:|---:|---:|\n")
			var sumPage, sumTotal, sumOldPage time.Duration
			timedOut := 0
			for _, c := range cases {
				o := caseOpts(c)
				o.users = p.UserIDs()
				q, err := tryCheck(c.Query(), o)
				if err != nil {
					b.Logf("%s: skipped: %v", c.Name, err)
					continue
				}
				want := evalIDs(b, q, p)
				firstWant := want[:min(len(want), pageSize)]
				type form struct {
					pageQ, totalQ string
					pageArgs      []any
					args          []any
				}
				var forms [2]form
				for i, purpose := range []compile.Purpose{compile.WholeSet, compile.Page} {
					s, err := compile.CompileFor(q, db.Dialect, m, purpose)
					require.NoError(b, err)
					pq, pa := s.SelectLimit(pageSize)
					forms[i] = form{pageQ: pq, pageArgs: pa, totalQ: "SELECT COUNT(*) FROM " + s.From + " WHERE " + s.Where, args: s.Args}
				}
				b.Run(c.Name, func(b *testing.B) {
					// timed runs q once on conn and returns the engine's
					// CPU time, or -1 when it ran past purposeTimeout.
					timed := func(q string, args []any, check func(*sql.Rows)) time.Duration {
						qctx, cancel := context.WithTimeout(ctx, purposeTimeout)
						defer cancel()
						c0 := cpu()
						rows, err := conn.QueryContext(qctx, q, args...)
						if err == nil {
							check(rows)
							err = rows.Err()
							rows.Close()
						}
						if errors.Is(err, context.DeadlineExceeded) || qctx.Err() != nil {
							return -1
						}
						require.NoError(b, err, q)
						return cpu() - c0
					}
					checkPage := func(rows *sql.Rows) {
						got := []int64{}
						for rows.Next() {
							var id int64
							require.NoError(b, rows.Scan(&id))
							got = append(got, id)
						}
						if rows.Err() == nil {
							require.Equal(b, firstWant, got, "%s: first page", c.Name)
						}
					}
					checkCount := func(rows *sql.Rows) {
						if rows.Next() {
							var n int64
							require.NoError(b, rows.Scan(&n))
							require.Equal(b, int64(len(want)), n, "%s: total", c.Name)
						}
					}
					runs := []struct {
						q     string
						args  []any
						check func(*sql.Rows)
					}{
						{forms[0].pageQ, forms[0].pageArgs, checkPage},
						{forms[1].pageQ, forms[1].pageArgs, checkPage},
						{forms[0].totalQ, forms[0].args, checkCount},
						{forms[1].totalQ, forms[1].args, checkCount},
					}
					times := make([][]time.Duration, len(runs))
					dead := make([]bool, len(runs))
					skipped := make([]bool, len(runs))
					if pagesOnly {
						skipped[2], skipped[3] = true, true
					}
					for i := 0; b.Loop(); i++ {
						// Rotate which goes first.
						for j := range runs {
							k := (i + j) % len(runs)
							if dead[k] || skipped[k] {
								continue
							}
							d := timed(runs[k].q, runs[k].args, runs[k].check)
							if d < 0 {
								dead[k] = true
								continue
							}
							times[k] = append(times[k], d)
						}
					}
					med := make([]time.Duration, len(runs))
					cells := make([]string, len(runs))
					for k, name := range []string{"page-whole", "page-page", "total-whole", "total-page"} {
						med[k] = median(times[k])
						v, cell := ms(med[k]), fmt.Sprintf("%.3g", ms(med[k]))
						switch {
						case dead[k]:
							v, cell = -1, "> 10 s"
						case skipped[k]:
							cell = "-"
						}
						b.ReportMetric(v, name+"-cpums")
						cells[k] = cell
					}
					fmt.Fprintf(&table, "| `%s` | %s |\n", c.Name, strings.Join(cells, " | "))
					// The sums leave out the forms that timed out (counted
					// apart for the chosen ones).
					for k, sum := range []*time.Duration{&sumOldPage, &sumPage, &sumTotal} {
						if !dead[k] {
							*sum += med[k]
						}
					}
					if dead[1] || dead[2] {
						timedOut++
					}
				})
			}
			b.Logf("%s, %d strings, CPU ms (medians):\n%s\nfirst pages: %.1f ms with the page form (%.1f ms with the whole-set form); totals with the whole-set form: %.1f ms; %d chosen forms timed out (left out of the sums)",
				name, len(p.Strings), table.String(), ms(sumPage), ms(sumOldPage), ms(sumTotal), timedOut)
		})
	}
}
