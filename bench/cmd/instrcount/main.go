// Command instrcount runs one bench pattern over the demo strings, with
// croql's typed evaluator (eval.Bind, Typed.Func: the func a loop over
// *schema.SourceString calls) or the hand-written Go predicate, so that
// callgrind can count the instructions per object of each, a figure
// that does not move with machine load:
//
//	go build -o /tmp/instrcount ./cmd/instrcount
//	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//	  --toggle-collect='main.measure' /tmp/instrcount -pattern count-eq-3 -engine croql -passes 20
//	callgrind_annotate /tmp/cg.out | head   # total Ir / (passes * 2000 strings)
//
// ../../instr.sh runs it for every pattern (-list) and engine and prints
// the table of instructions per object and the ratio croql/hand.
//
// Only main.measure is counted: the loop over the objects and the calls it
// makes, not the program's start or the data's generation.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/croql/croql"
	"github.com/croql/croql/bench"
	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

func main() {
	pattern := flag.String("pattern", "count-eq-3", "bench pattern name (bench.Patterns)")
	engine := flag.String("engine", "croql", "croql (eval.Bind), croql-plain (eval.WithoutOptimizations), croql-facade (croql.For), croql-any (croql's Query.Match), croql-program (eval.Program.Match) or hand")
	passes := flag.Int("passes", 20, "passes over the 2,000 demo strings")
	list := flag.Bool("list", false, "print the pattern names, one a line, and exit")
	layout := flag.String("layout", "generated", "generated (the demo's strings as demo.Generate makes them) or resident (read back from their NDJSON file: into croql serve's resident snapshot, server.ResidentStrings, for the croql engine; as decoded, server.FileSource, for the others)")
	flag.Parse()
	if *list {
		for _, x := range bench.Patterns() {
			fmt.Println(x.Name)
		}
		return
	}
	if err := run(*pattern, *engine, *layout, *passes); err != nil {
		fmt.Fprintln(os.Stderr, "instrcount:", err)
		os.Exit(1)
	}
}

func run(pattern, engine, layout string, passes int) error {
	p, err := project(layout)
	if err != nil {
		return err
	}
	var pat *bench.Pattern
	for _, x := range bench.Patterns() {
		if x.Name == pattern {
			pat = &x
			break
		}
	}
	if pat == nil {
		return fmt.Errorf("no pattern %q", pattern)
	}
	var match func(*schema.SourceString) bool
	var loop func(strs []schema.SourceString, passes int) int // a measured loop of its own
	switch engine {
	case "croql-facade", "croql-any", "croql-program":
		env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(p.UserIDs()))
		if err != nil {
			return err
		}
		q, diags := env.Compile(pat.CroQL)
		if diags.HasErrors() {
			return fmt.Errorf("%s: %v", pat.CroQL, diags)
		}
		switch engine {
		case "croql-facade":
			m, err := croql.For[schema.SourceString](q)
			if err != nil {
				return err
			}
			loop = func(strs []schema.SourceString, passes int) int { return measureFacade(m, strs, passes) }
			match = func(s *schema.SourceString) bool { ok, _ := m.Match(s); return ok }
		case "croql-any":
			loop = func(strs []schema.SourceString, passes int) int { return measureAny(q, strs, passes) }
			match = func(s *schema.SourceString) bool { ok, _ := q.Match(s); return ok }
		default:
			loop = func(strs []schema.SourceString, passes int) int { return measureProgram(q.Program(), strs, passes) }
			match = func(s *schema.SourceString) bool { return q.Program().Match(s) }
		}
	case "hand":
		match = pat.Hand
	case "croql", "croql-plain":
		env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(p.UserIDs()))
		if err != nil {
			return err
		}
		if layout == "resident" && engine == "croql" {
			return runResident(env, pat, passes)
		}
		q, diags := env.Check(pat.CroQL)
		if diags.HasErrors() {
			return fmt.Errorf("%s: %v", pat.CroQL, diags)
		}
		var opts []eval.Option
		opts = append(opts, eval.WithUserRefs(p.Users...))
		if engine == "croql-plain" {
			opts = append(opts, eval.WithoutOptimizations())
		}
		prog, err := eval.Compile(q, opts...)
		if err != nil {
			return err
		}
		typed, err := eval.Bind[schema.SourceString](prog)
		if err != nil {
			return err
		}
		match = typed.Func()
	default:
		return fmt.Errorf("engine %q: croql, croql-plain, croql-facade, croql-any, croql-program or hand", engine)
	}
	// Callgrind follows calls by the stack pointer of each OS thread: a
	// collection that shrinks or moves the goroutine's stack, or a
	// goroutine that resumes on another thread, makes it lose main.measure
	// and stop counting part way. So the measured loop runs with no
	// garbage collection, on one locked thread, after a warm-up pass that
	// grows the stack to what the loop needs.
	runtime.GC()
	debug.SetGCPercent(-1)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var n int
	if loop != nil {
		// The warm-up must not run in a measure* function, which the
		// count would include: it calls the engine through match.
		warm(match, p.Strings)
		n = loop(p.Strings, passes)
	} else {
		warm(match, p.Strings)
		n = measure(match, p.Strings, passes)
	}
	if n < 0 {
		return fmt.Errorf("%s %s: an object was refused as a misuse", pattern, engine)
	}
	fmt.Printf("%s %s: %d matches over %d objects\n", pattern, engine, n, passes*len(p.Strings))
	return nil
}

// project is the 2,000 demo strings in the layout named (for the
// resident layout, the schema's types read back from the file, which the
// hand-written predicates run on; the croql engine runs on the
// snapshot's own, runResident).
func project(layout string) (*schema.Project, error) {
	p := demo.Generate(demo.Options{Strings: 2000, Seed: 1})
	switch layout {
	case "generated":
		return p, nil
	case "resident":
	default:
		return nil, fmt.Errorf("layout %q: generated or resident", layout)
	}
	name, err := projectFile(p)
	if err != nil {
		return nil, err
	}
	defer os.Remove(name)
	return server.FileSource(name)(context.Background(), 0)
}

// projectFile writes p to a temporary NDJSON file and names it.
func projectFile(p *schema.Project) (string, error) {
	f, err := os.CreateTemp("", "instrcount-*.ndjson")
	if err != nil {
		return "", err
	}
	if err := errors.Join(p.WriteNDJSON(f), f.Close()); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// runResident measures the croql engine on the strings of croql serve's
// resident snapshot, in its own type (server.ResidentStrings).
func runResident(env *croql.Env, pat *bench.Pattern, passes int) error {
	name, err := projectFile(demo.Generate(demo.Options{Strings: 2000, Seed: 1}))
	if err != nil {
		return err
	}
	defer os.Remove(name)
	strs, match, err := server.ResidentStrings(context.Background(), name, env, pat.CroQL)
	if err != nil {
		return err
	}
	runtime.GC()
	debug.SetGCPercent(-1)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	warmResident(match, strs)
	n := measureResident(match, strs, passes)
	fmt.Printf("%s croql (resident): %d matches over %d objects\n", pat.Name, n, passes*len(strs))
	return nil
}

// warmResident is warm for the snapshot's strings.
//
//go:noinline
func warmResident(match func(*server.ResidentString) bool, strs []server.ResidentString) {
	for i := range strs {
		match(&strs[i])
	}
}

// measureResident is measure for the snapshot's strings. It steps a byte
// offset, as the evaluator's own loops do, so that what the loop costs
// does not depend on the size of a string (an index times 184 is one
// multiply, times 160 a shift and an add).
//
//go:noinline
func measureResident(match func(*server.ResidentString) bool, strs []server.ResidentString, passes int) int {
	n := 0
	if len(strs) == 0 {
		return 0
	}
	base, size := unsafe.Pointer(unsafe.SliceData(strs)), unsafe.Sizeof(strs[0])
	end := uintptr(len(strs)) * size
	for range passes {
		for o := uintptr(0); o < end; o += size {
			if match((*server.ResidentString)(unsafe.Add(base, o))) {
				n++
			}
		}
	}
	return n
}

// warm runs match once over strs, outside the counted function.
//
//go:noinline
func warm(match func(*schema.SourceString) bool, strs []schema.SourceString) {
	for i := range strs {
		match(&strs[i])
	}
}

//go:noinline
func measure(match func(*schema.SourceString) bool, strs []schema.SourceString, passes int) int {
	n := 0
	for range passes {
		for i := range strs {
			if match(&strs[i]) {
				n++
			}
		}
	}
	return n
}

// measureFacade is measure through croql.For's Matcher, the call inlined
// into the loop as a user's loop has it. It returns -1 on an error.
//
//go:noinline
func measureFacade(m croql.Matcher[schema.SourceString], strs []schema.SourceString, passes int) int {
	n := 0
	for range passes {
		for i := range strs {
			ok, err := m.Match(&strs[i])
			if err != nil {
				return -1
			}
			if ok {
				n++
			}
		}
	}
	return n
}

// measureAny is measure through croql's Query.Match(any). It returns -1 on
// an error.
//
//go:noinline
func measureAny(q *croql.Query, strs []schema.SourceString, passes int) int {
	n := 0
	for range passes {
		for i := range strs {
			ok, err := q.Match(&strs[i])
			if err != nil {
				return -1
			}
			if ok {
				n++
			}
		}
	}
	return n
}

// measureProgram is measure through eval.Program.Match(any).
//
//go:noinline
func measureProgram(prog *eval.Program, strs []schema.SourceString, passes int) int {
	n := 0
	for range passes {
		for i := range strs {
			if prog.Match(&strs[i]) {
				n++
			}
		}
	}
	return n
}
