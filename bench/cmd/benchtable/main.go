// Command benchtable runs the bench module's pattern benchmarks (croql,
// expr, cel-go and hand-written Go on the same source strings) and prints
// a Markdown table of ns/object, allocs/object and the ratios of croql's
// time to each peer's, with the machine it ran on.
//
//	cd bench && go run ./cmd/benchtable [-benchtime 500ms] [-count 5] [-strings 2000] [-run PATTERN]
//
// Each figure is the median of -count rounds of testing.Benchmark; a round
// runs the four engines one after the other, and each ratio is the median
// of the ratios within a round (steadier on a busy machine). The last
// lines list the patterns that miss the targets (croql at most 1/3 of
// expr's time, 1/5 of cel-go's, 2× hand-written Go, and 0 allocs/object).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/croql/croql/bench"
)

func main() {
	testing.Init()
	benchtime := flag.String("benchtime", "500ms", "time (or Nx iterations) per benchmark run, as go test -benchtime")
	count := flag.Int("count", 5, "rounds per pattern; the table shows medians")
	n := flag.Int("strings", 2000, "number of generated source strings to cycle through")
	only := flag.String("run", "", "only patterns whose name contains this text")
	flag.Parse()
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fmt.Fprintf(os.Stderr, "benchtable: -benchtime: %v\n", err)
		os.Exit(2)
	}
	if *count < 1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "benchtable: -count and -strings must be at least 1")
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Stderr, *n, *count, *only); err != nil {
		fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
		os.Exit(1)
	}
}

// result is the median figures of one pattern in one engine, and the
// median ratios of croql's time to the engine's.
type result struct{ ns, allocs, ratio float64 }

func run(w, progress io.Writer, n, count int, only string) error {
	p := bench.Data(n)
	engines, err := bench.Engines(p)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range engines {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{bench.CroQL, bench.Expr, bench.CEL, bench.Hand}) {
		return fmt.Errorf("want the engines croql, expr, cel, hand in this order, got %v", names)
	}
	type row struct {
		name string
		res  map[string]result
	}
	var rows []row
	for _, pt := range bench.Patterns() {
		if !strings.Contains(pt.Name, only) {
			continue
		}
		ms := make([]bench.Matcher, len(engines))
		for i, e := range engines {
			if ms[i], err = e.Build(pt); err != nil {
				return err
			}
		}
		// Rounds interleave the engines, and each ratio is taken within a
		// round, so that a load that changes over time (a shared machine)
		// skews the ratios less than the absolute figures.
		ns := make([][]float64, len(engines))
		allocs := make([][]float64, len(engines))
		ratios := make([][]float64, len(engines))
		for round := range count {
			this := make([]float64, len(engines))
			for i, e := range engines {
				fmt.Fprintf(progress, "\r%-40s %-6s %d/%d", pt.Name, e.Name, round+1, count)
				m := ms[i]
				br := testing.Benchmark(func(b *testing.B) { bench.Run(b, m, p) })
				if br.N == 0 {
					return fmt.Errorf("%s/%s: the benchmark failed", pt.Name, e.Name)
				}
				this[i] = float64(br.T.Nanoseconds()) / float64(br.N)
				ns[i] = append(ns[i], this[i])
				allocs[i] = append(allocs[i], float64(br.MemAllocs)/float64(br.N))
			}
			for i := range engines {
				ratios[i] = append(ratios[i], this[0]/this[i]) // engines[0] is croql
			}
		}
		r := row{name: pt.Name, res: map[string]result{}}
		for i, e := range engines {
			r.res[e.Name] = result{ns: median(ns[i]), allocs: median(allocs[i]), ratio: median(ratios[i])}
		}
		rows = append(rows, r)
	}
	fmt.Fprintf(progress, "\r%-48s\r", "")

	fmt.Fprintf(w, "Machine: %s; %s %s/%s, GOMAXPROCS %d; %d generated strings (demo seed 1); medians of %d rounds, ratios taken within each round.\n\n",
		cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), n, count)
	fmt.Fprintln(w, "| pattern | croql ns | expr ns | cel ns | hand ns | croql allocs | expr allocs | cel allocs | hand allocs | croql/expr | croql/cel | croql/hand |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	var misses []string
	for _, r := range rows {
		c, x, l, h := r.res[bench.CroQL], r.res[bench.Expr], r.res[bench.CEL], r.res[bench.Hand]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f |\n", r.name,
			fmtNs(c.ns), fmtNs(x.ns), fmtNs(l.ns), fmtNs(h.ns),
			fmtAllocs(c.allocs), fmtAllocs(x.allocs), fmtAllocs(l.allocs), fmtAllocs(h.allocs),
			x.ratio, l.ratio, h.ratio)
		var miss []string
		if x.ratio > 1.0/3 {
			miss = append(miss, fmt.Sprintf("croql/expr %.2f > 0.33 (%.1f× over)", x.ratio, x.ratio*3))
		}
		if l.ratio > 1.0/5 {
			miss = append(miss, fmt.Sprintf("croql/cel %.2f > 0.20 (%.1f× over)", l.ratio, l.ratio*5))
		}
		if h.ratio > 2 {
			miss = append(miss, fmt.Sprintf("croql/hand %.2f > 2 (%.1f× over)", h.ratio, h.ratio/2))
		}
		if c.allocs > 0 {
			miss = append(miss, fmt.Sprintf("%s allocs/object", fmtAllocs(c.allocs)))
		}
		if len(miss) > 0 {
			misses = append(misses, fmt.Sprintf("- %s: %s", r.name, strings.Join(miss, "; ")))
		}
	}
	fmt.Fprintln(w)
	if len(misses) == 0 {
		fmt.Fprintln(w, "Every pattern meets the targets (croql ≤ 1/3 expr, ≤ 1/5 cel-go, ≤ 2× hand-written, 0 allocs/object).")
	} else {
		fmt.Fprintln(w, "Targets missed (croql ≤ 1/3 expr, ≤ 1/5 cel-go, ≤ 2× hand-written, 0 allocs/object):")
		for _, m := range misses {
			fmt.Fprintln(w, m)
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtNs(ns float64) string {
	if ns < 10 {
		return fmt.Sprintf("%.2f", ns)
	}
	return fmt.Sprintf("%.1f", ns)
}

func fmtAllocs(a float64) string {
	if a == float64(int64(a)) {
		return fmt.Sprintf("%d", int64(a))
	}
	return fmt.Sprintf("%.2f", a)
}

// cpuModel reads the processor name from /proc/cpuinfo where there is one.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
