package fuzz

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"time"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// The pools of values the query generator and the data generator share, so
// that generated comparisons hit generated data often enough to matter.

// Users is the user directory of generated data: @user mentions name these
// logins. Data also holds user ids outside it (see unknownUser), whose
// login is absent.
func Users() []schema.UserRef {
	return []schema.UserRef{
		{ID: 11, Login: "alice"},
		{ID: 12, Login: "bob"},
		{ID: 13, Login: "zoë"},
		{ID: 14, Login: `o"brien`},
	}
}

// unknownUser is a user id that generated data uses and the directory
// lacks.
const unknownUser = 99

// Languages are the language codes of generated data and @language
// mentions.
func Languages() []string { return []string{"de", "fr", "pt-BR", "uk", "ja"} }

// pools holds the values and operators generators pick from; each
// generator builds its own, so nothing is shared between goroutines.
type pools struct {
	users     []schema.UserRef
	languages []string
	pieces    []string
	smallInts []int64
	bigInts   []int64
	floats    []float64
	timeTexts []string
	times     []schema.Time
	// The operators, by their class (typecheck.ClassOf), so that a new
	// operator of a class is generated without a change here.
	cmpOps   []ast.Op // equalities and orderings: = != < <= > >=
	eqOps    []ast.Op // equalities: = !=
	logicOps []ast.Op // and or xor
	arithOps []ast.Op // arithmetic on ints and floats: + - *
	divOps   []ast.Op // arithmetic whose result is always a float: /
	textOps  []ast.Op // tests of two strings: contains
}

// opsOf returns the operators of ast.Syntax that keep says to, in the
// order of the enum.
func opsOf(keep func(ast.Op) bool) []ast.Op {
	var out []ast.Op
	for _, op := range ast.Ops() {
		if keep(op) {
			out = append(out, op)
		}
	}
	return out
}

// newPools builds the pools. The pieces are the fragments generated
// strings are made of: empty and
// short ASCII, quotes and escapes, control characters, letters that case
// folding treats specially (ß, İ, ſ, K as Kelvin sign, final sigma), accents
// in composed and decomposed form, emoji and a word of the language. The
// integers are small counts, the ids generated data uses, and (rarely)
// boundaries; floats are not negative (a minus is a unary node); the
// datetime texts are every form the language reads and boundary instants,
// which generated data uses too, with a second either side of a few.
func newPools() *pools {
	p := &pools{
		users:     Users(),
		languages: Languages(),
		pieces: []string{
			"", "a", "A", "ab", "Hello", "hello", " ", "x y", `"`, `\`, "'", "\n", "\t",
			"é", "e\u0301", "ß", "SS", "İ", "i", "ſ", "\u212a", "k", "ς", "Σ", "σ", "日本", "👋", "\u00a0",
			"and", "%", "_", "\x01",
		},
		smallInts: []int64{0, 1, 2, 3, 5, 7, 10, 11, 12, 13, 14, 42, 99, 100, 1000},
		bigInts:   []int64{1 << 31, 1<<53 + 1, math.MaxInt64},
		floats:    []float64{0, 0.5, 1, 1.5, 2.25, 10.01, 0.1, 1e-7, 123456.789},
		cmpOps: opsOf(func(op ast.Op) bool {
			return typecheck.ClassOf(op) == typecheck.ClassEquality || typecheck.ClassOf(op) == typecheck.ClassOrder
		}),
		eqOps:    opsOf(func(op ast.Op) bool { return typecheck.ClassOf(op) == typecheck.ClassEquality }),
		logicOps: opsOf(func(op ast.Op) bool { return typecheck.ClassOf(op) == typecheck.ClassLogic }),
		arithOps: opsOf(func(op ast.Op) bool {
			return typecheck.ClassOf(op) == typecheck.ClassArith && !typecheck.ArithmeticOf(op).Float
		}),
		divOps: opsOf(func(op ast.Op) bool {
			return typecheck.ClassOf(op) == typecheck.ClassArith && typecheck.ArithmeticOf(op).Float
		}),
		textOps: opsOf(func(op ast.Op) bool { return typecheck.ClassOf(op) == typecheck.ClassContains }),
		timeTexts: []string{
			"2024-01-01 00:00:00", "2024-01-01", "2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00",
			"2024-02-29 23:59:59", "2023-12-31 23:59:59", "1970-01-01 00:00:00", "1969-12-31 23:59:59",
			"2038-01-19 03:14:08", "9999-12-31 23:59:59", "0001-01-01 00:00:00", "2024-06-15 12:30:00",
			"today",
		},
	}
	// The logical operators by spelling (and, or, xor), so that a seed
	// generates what it did when they were written out.
	slices.SortFunc(p.logicOps, func(a, b ast.Op) int { return strings.Compare(a.String(), b.String()) })
	for _, s := range p.timeTexts {
		if s == "today" {
			p.times = append(p.times, Now())
			continue
		}
		p.times = append(p.times, mustTime(s))
	}
	p.times = append(p.times, mustTime("2024-01-01 00:00:01"), mustTime("2023-12-31 23:59:58"), Now()-1, Now()+1)
	return p
}

// text makes a string of zero to three pieces.
func (p *pools) text(r *rand.Rand) string {
	var b strings.Builder
	for n := r.Intn(4); n > 0; n-- {
		b.WriteString(p.pieces[r.Intn(len(p.pieces))])
	}
	return b.String()
}

// Now is the fixed clock of generated queries: 'today' is 2024-06-15
// 00:00:00 UTC.
func Now() schema.Time { return mustTime("2024-06-15 00:00:00") }

// mustTime reads one of the constant datetimes above.
func mustTime(s string) schema.Time {
	t, err := schema.ParseTime(s, time.UTC)
	if err != nil {
		panic(err) // unreachable: the texts are constants that parse
	}
	return t
}
