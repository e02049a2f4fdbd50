package eval_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/eval"
	"github.com/croql/croql/internal/refeval"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// allocQueries cover every kind of closure: fields, members, nulls,
// arithmetic, if, nested where and with, logins, contains with and without
// folding.
var allocQueries = []struct {
	src  string
	fold bool
}{
	{src: `is hidden and not is duplicate and count of translations > 0`},
	{src: `identifier = "welcome_title" and id of file = 7`},
	{src: `count of translations where (count of approvals where (user = @user:"alice") > 0) > 0`},
	{src: `count of translations > 0 and count of translations = count of translations where (user = @user:"alice")`},
	{src: `count of translations where (user with (login = "alice") and login of user != "bob") >= 1`},
	{src: `max length / (count of comments - 1) > 2.5 or (if updated > added then -max length else 3) = 3`},
	{src: `text contains "welcome" or count of translations where (text contains identifier) > 0`, fold: true},
	{src: `text contains "Welcome" and title of file != "x" and updated between '2024-01-01' and '2024-12-31'`},
	{src: `count of languages summary where (translation updated and rating between 1 and 3) > 0 xor branch with (id = 2)`},
}

func TestZeroAllocsPerEvaluation(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	cat := schema.New()
	p := demo.Default()
	for _, tc := range allocQueries {
		q := check(t, cat, schema.CtxStrings, tc.src, checkOpts{users: p.UserIDs(), fold: tc.fold})
		prog, err := eval.Compile(q, eval.WithUserRefs(p.Users...))
		require.NoError(t, err)
		typed, err := eval.Bind[schema.SourceString](prog)
		require.NoError(t, err)
		f := typed.Func()
		n := 0
		allocs := testing.AllocsPerRun(20, func() {
			for i := range p.Strings {
				if prog.Match(&p.Strings[i]) {
					n++
				}
				if typed.Match(&p.Strings[i]) {
					n++
				}
				if f(&p.Strings[i]) {
					n++
				}
			}
		})
		assert.Zero(t, allocs, "%s: allocations per %d evaluations", tc.src, 3*len(p.Strings))
	}
}

// TestLocalRootDoesNotEscape: matching a root that lives on the caller's
// stack does not move it to the heap.
func TestLocalRootDoesNotEscape(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	prog := compile(t, schema.New(), schema.CtxStrings, `is hidden and identifier = "x" and count of translations where (user = 11) = 0`)
	hits := 0
	allocs := testing.AllocsPerRun(100, func() {
		s := schema.SourceString{Identifier: "x", IsHidden: true}
		if prog.Match(&s) {
			hits++
		}
	})
	assert.Zero(t, allocs)
	assert.Equal(t, 101, hits)
}

// deepWith nests `file with (branch with (...))` depth times around a test
// of the innermost object's id and of the root's identifier: every with
// opens a scope, and file and branch resolve outward to the root.
func deepWith(depth int) string {
	src := `id > 1 and identifier contains "e"`
	for i := range depth {
		src = []string{`file`, `branch`}[i%2] + ` with (` + src + `)`
	}
	return `count of translations where (count of votes where (user = 11) > 0) > 0 or ` + src
}

// TestDeepScopes runs queries whose frames take each size of stack frame.
func TestDeepScopes(t *testing.T) {
	cat := schema.New()
	ctx, _ := cat.Context(schema.CtxStrings)
	ref := &refeval.Interp{}
	p := demo.Default()
	deep := parser.New(parser.Limits{MaxDepth: 1000, MaxNodes: 100000, MaxSource: 1 << 20})
	for _, depth := range []int{1, 6, 10, 40, eval.MaxScopes - 1} {
		src := deepWith(depth)
		tree, pd := deep.Parse(src)
		require.False(t, pd.HasErrors(), "%v", pd)
		q := typecheck.Check(typecheck.Config{Catalog: cat, Context: ctx}, src, tree)
		require.False(t, q.Diags.HasErrors(), "%v", q.Diags)
		require.Equal(t, max(depth+1, 3), q.Scopes) // the prefix nests two scopes
		prog, err := eval.Compile(q)
		require.NoError(t, err, "depth %d", depth)
		matched := 0
		for i := range p.Strings {
			want, err := ref.Match(q, &p.Strings[i])
			require.NoError(t, err)
			require.Equal(t, want, prog.Match(&p.Strings[i]), "depth %d, string %d", depth, i)
			if want {
				matched++
			}
		}
		assert.Positive(t, matched, "depth %d", depth)
		assert.Less(t, matched, len(p.Strings), "depth %d", depth)
	}

	// Deeper than the frame on the stack: an error, not a crash.
	src := deepWith(eval.MaxScopes)
	tree, pd := deep.Parse(src)
	require.False(t, pd.HasErrors(), "%v", pd)
	q := typecheck.Check(typecheck.Config{Catalog: cat, Context: ctx}, src, tree)
	require.False(t, q.Diags.HasErrors())
	_, err := eval.Compile(q)
	assert.ErrorContains(t, err, "at most")
}

// TestFrameSurvivesStackGrowthAndGC evaluates on a goroutine whose stack
// must grow in the middle of an evaluation (deep recursion before the
// call, and a deep query), with collections running concurrently: the
// frame kept on the stack must move with it.
func TestFrameSurvivesStackGrowthAndGC(t *testing.T) {
	cat := schema.New()
	src := `count of translations where (count of votes where (user = user) > 0 and text contains "a") > 0`
	for range 40 {
		src = `(` + src + ` or max length = -1) and not is duplicate xor is duplicate`
	}
	q := check(t, cat, schema.CtxStrings, src, checkOpts{})
	prog, err := eval.Compile(q)
	require.NoError(t, err)
	ref := &refeval.Interp{}
	p := demo.Generate(demo.Options{Strings: 200, Seed: 3})
	want := make([]bool, len(p.Strings))
	for i := range p.Strings {
		want[i], err = ref.Match(q, &p.Strings[i])
		require.NoError(t, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	})
	var recurse func(depth, i int) bool
	recurse = func(depth, i int) bool {
		var pad [64]byte
		if depth > 0 {
			return recurse(depth-1, i+int(pad[depth%64]))
		}
		// A local root on this (moving) stack.
		s := p.Strings[i]
		return prog.Match(&s)
	}
	for round := range 4 {
		for i := range p.Strings {
			done := make(chan bool)
			go func() { done <- recurse(round*50+i%7*10, i) }()
			require.Equal(t, want[i], <-done, "string %d", i)
		}
	}
	close(stop)
	wg.Wait()
}

func TestFilterKeepsOrder(t *testing.T) {
	cat := schema.New()
	// More strings than one chunk of FilterParallel, not a multiple of 64.
	p := demo.Generate(demo.Options{Strings: 3001, Seed: 2})
	prog := compile(t, cat, schema.CtxStrings, `count of translations where (count of votes > 0) > 0 and not is hidden`)
	var want []int64
	for i := range p.Strings {
		if prog.Match(&p.Strings[i]) {
			want = append(want, p.Strings[i].ID)
		}
	}
	require.NotEmpty(t, want)
	require.Less(t, len(want), len(p.Strings))
	ids := func(xs []schema.SourceString) []int64 {
		var out []int64
		for _, x := range xs {
			out = append(out, x.ID)
		}
		return out
	}
	assert.Equal(t, want, ids(eval.Filter(prog, p.Strings)))

	ptrs := make([]*schema.SourceString, len(p.Strings)+1)
	for i := range p.Strings {
		ptrs[i] = &p.Strings[i]
	}
	// a nil pointer at the end never matches
	gotPtrs := eval.Filter(prog, ptrs)
	require.Len(t, gotPtrs, len(want))
	for i, s := range gotPtrs {
		assert.Equal(t, want[i], s.ID)
		assert.Same(t, s, ptrs[indexOf(p.Strings, s.ID)], "pointers are returned as given")
	}

	for _, workers := range []int{0, 1, 3, 16} {
		got, err := eval.FilterParallel(context.Background(), prog, p.Strings, workers)
		require.NoError(t, err)
		assert.Equal(t, want, ids(got), "workers %d", workers)
	}

	// A slice of another type matches nothing.
	assert.Empty(t, eval.Filter(prog, []schema.Translation{{}}))
	got, err := eval.FilterParallel(context.Background(), prog, []int{1, 2}, 2)
	assert.NoError(t, err)
	assert.Empty(t, got)
}

func indexOf(xs []schema.SourceString, id int64) int {
	for i := range xs {
		if xs[i].ID == id {
			return i
		}
	}
	return -1
}

func TestFilterParallelCancel(t *testing.T) {
	cat := schema.New()
	p := demo.Generate(demo.Options{Strings: 3000, Seed: 2})
	prog := compile(t, cat, schema.CtxStrings, `count of translations > 0`)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := eval.FilterParallel(ctx, prog, p.Strings, 2)
	assert.Nil(t, got)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)

	// Cancelled while running: a query that cancels the context from
	// inside the data would be contrived, so cancel from a goroutine over a
	// large input and accept either outcome but never a partial result.
	const size = 200_000
	big := make([]schema.SourceString, 0, size+len(p.Strings))
	for len(big) < size {
		big = append(big, p.Strings...)
	}
	ctx, cancel = context.WithCancel(context.Background())
	go cancel()
	got, err = eval.FilterParallel(ctx, prog, big, 2)
	if err != nil {
		assert.True(t, errors.Is(err, context.Canceled))
		assert.Nil(t, got)
	} else {
		assert.Equal(t, len(eval.Filter(prog, big)), len(got))
	}
}

// TestSharedProgramConcurrently shares one Program between goroutines (run
// it with -race): every goroutine gets the same results as a sequential run.
func TestSharedProgramConcurrently(t *testing.T) {
	cat := schema.New()
	p := demo.Generate(demo.Options{Strings: 400, Seed: 5})
	prog := compile(t, cat, schema.CtxStrings,
		`count of translations where (user with (login contains "a") and count of votes where (is up) > 0) > 0 or text contains "e"`)
	want := eval.Filter(prog, p.Strings)
	require.NotEmpty(t, want)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for range 5 {
				var got []schema.SourceString
				if g%2 == 0 {
					got = eval.Filter(prog, p.Strings)
				} else {
					var err error
					got, err = eval.FilterParallel(context.Background(), prog, p.Strings, 3)
					if err != nil {
						errs <- err.Error()
						return
					}
				}
				if len(got) != len(want) {
					errs <- "different result"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	var all []string
	for e := range errs {
		all = append(all, e)
	}
	assert.Empty(t, all, strings.Join(all, "; "))
}
