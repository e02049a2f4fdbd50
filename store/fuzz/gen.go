package fuzz

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"time"

	"github.com/leanovate/gopter"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Config configures a Generator.
type Config struct {
	// Context is the context the queries are for (strings, translations,
	// tm, glossary, concepts).
	Context string
	// Edition decides whether enterprise-only fields are generated.
	Edition schema.Edition
	// MaxDepth bounds the nesting of generated trees (default 4).
	MaxDepth int
	// FoldContains checks the queries with a case-insensitive contains.
	FoldContains bool
	// AllowOverflow lets the generator make queries whose float
	// arithmetic may overflow or underflow (see MayOverflow); by default it
	// makes others instead, and the shrinker keeps to them too. Integer
	// overflow is always allowed: it is absent on every engine.
	AllowOverflow bool
}

// Generator makes random well-typed CroQL queries for one context. It is
// immutable once built; each gopter generation gets its own builder.
type Generator struct {
	cfg   Config
	cat   *schema.Catalog
	ctx   *schema.Context
	check typecheck.Config
	pools *pools
	// boolNames are the bool fields of every object the context reaches,
	// for the shrinker.
	boolNames []string
}

// NewGenerator builds a generator for cfg.Context.
func NewGenerator(cfg Config) (*Generator, error) {
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 4
	}
	cat := schema.New()
	ctx, ok := cat.Context(cfg.Context)
	if !ok {
		return nil, fmt.Errorf("fuzz: unknown context %q", cfg.Context)
	}
	p := newPools()
	users := make(map[string]int64, len(p.users))
	for _, u := range p.users {
		users[u.Login] = u.ID
	}
	now := Now().Std()
	g := &Generator{
		cfg: cfg, cat: cat, ctx: ctx, pools: p,
		check: typecheck.Config{
			Catalog: cat, Context: ctx, Edition: cfg.Edition,
			Users: users, Languages: p.languages,
			Now: func() time.Time { return now }, Location: time.UTC,
			FoldContains: cfg.FoldContains,
		},
	}
	names, objs := map[string]bool{}, map[*schema.Object]bool{}
	var walk func(o *schema.Object)
	walk = func(o *schema.Object) {
		objs[o] = true
		for _, f := range o.Fields {
			if f.Type.Kind == schema.Bool && !names[f.Name] {
				names[f.Name] = true
				g.boolNames = append(g.boolNames, f.Name)
			}
			if o := f.Type.Obj; o != nil && !objs[o] {
				walk(o)
			}
		}
	}
	walk(ctx.Root)
	return g, nil
}

// Context is the context the generator makes queries for.
func (g *Generator) Context() *schema.Context { return g.ctx }

// CheckConfig is the type checker configuration generated queries are
// well-typed under: the context, the edition, the user directory of
// [Users], the languages of [Languages] and the fixed clock of [Now].
func (g *Generator) CheckConfig() typecheck.Config { return g.check }

// Check parses and checks src under CheckConfig. It returns the checked
// query, or an error when src does not parse or does not check clean
// (warnings are fine).
func (g *Generator) Check(src string) (*typecheck.Query, error) {
	tree, diags := parser.Parse(src)
	if diags.HasErrors() {
		return nil, fmt.Errorf("parse %q: %w", src, diags.Err())
	}
	q := typecheck.Check(g.check, src, tree)
	if q.Diags.HasErrors() {
		return nil, fmt.Errorf("check %q: %w", src, q.Diags.Err())
	}
	return q, nil
}

// valid reports whether the framed query of c checks clean and, unless
// the configuration allows it, cannot overflow.
func (g *Generator) valid(c Case) bool {
	q, err := g.Check(c.Source())
	return err == nil && (g.cfg.AllowOverflow || !MayOverflow(q.Root))
}

// Case is a generated test case: a few expressions (the parts) that a
// property combines into queries, and the frame that combines them into
// the one query that must check clean. A plain query has one part and the
// identity frame.
type Case struct {
	Context string
	Parts   []ast.Expr
	frame   func(parts []ast.Expr) ast.Expr
	// roles tells what each part is, for String.
	roles []string
}

// Tree is the framed query.
func (c Case) Tree() ast.Expr { return c.frame(c.Parts) }

// Source is the framed query as text.
func (c Case) Source() string { return ast.Print(c.Tree()) }

// String shows the case as a failing property prints it.
func (c Case) String() string {
	if len(c.Parts) == 1 {
		return fmt.Sprintf("[%s] %s", c.Context, ast.Print(c.Parts[0]))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]", c.Context)
	for i, p := range c.Parts {
		fmt.Fprintf(&b, " %s=`%s`", c.roles[i], ast.Print(p))
	}
	return b.String()
}

// gen wraps a builder function as a shrinkable gopter generator of Cases.
// build returns the parts, or nil when the context cannot make this kind
// of case (the generation is then retried with another random state, up
// to a bound, after which the generator fails).
func (g *Generator) gen(roles []string, frame func([]ast.Expr) ast.Expr, build func(b *builder) []ast.Expr) gopter.Gen {
	return func(params *gopter.GenParameters) *gopter.GenResult {
		b := &builder{g: g, r: params.Rng}
		for range 100 {
			parts := build(b)
			if parts == nil {
				continue
			}
			c := Case{Context: g.ctx.Name, Parts: parts, frame: frame, roles: roles}
			if !g.valid(c) {
				continue
			}
			return gopter.NewGenResult(c, g.shrinker)
		}
		return gopter.NewEmptyResult(reflect.TypeFor[Case]())
	}
}

func identity(parts []ast.Expr) ast.Expr { return parts[0] }

// Query generates well-typed bool queries of the context.
func (g *Generator) Query() gopter.Gen {
	return g.gen([]string{"query"}, identity, func(b *builder) []ast.Expr {
		return []ast.Expr{b.boolean(b.root(), g.cfg.MaxDepth, true)}
	})
}

// Preds generates two bool predicates p and q of the context's root
// scope; the frame is `p and q`.
func (g *Generator) Preds() gopter.Gen {
	frame := func(ps []ast.Expr) ast.Expr { return &ast.Binary{Op: ast.OpAnd, X: ps[0], Y: ps[1]} }
	return g.gen([]string{"p", "q"}, frame, func(b *builder) []ast.Expr {
		d := max(g.cfg.MaxDepth-1, 1)
		return []ast.Expr{b.boolean(b.root(), d, true), b.boolean(b.root(), d, true)}
	})
}

// Ordered generates x, a and b of one ordered kind (numbers, strings or
// datetimes) at the root scope; the frame is `x between a and b`.
func (g *Generator) Ordered() gopter.Gen {
	frame := func(ps []ast.Expr) ast.Expr { return &ast.Between{X: ps[0], Lo: ps[1], Hi: ps[2]} }
	return g.gen([]string{"x", "a", "b"}, frame, func(b *builder) []ast.Expr {
		d := max(g.cfg.MaxDepth-2, 1)
		return b.orderedTriple(b.root(), d)
	})
}

// Filtered generates a collection C of the root scope and two predicates
// p and q of its element; the frame is `count of C where (p) where (q) >=
// 0`. Contexts whose root has no collection cannot make one (the
// generator then fails; see HasCollections).
func (g *Generator) Filtered() gopter.Gen {
	frame := func(ps []ast.Expr) ast.Expr {
		w := &ast.Filter{Kind: ast.Where, X: &ast.Filter{Kind: ast.Where, X: ps[0], Pred: ps[1]}, Pred: ps[2]}
		return &ast.Binary{Op: ast.OpGe, X: &ast.Member{Name: &ast.Ident{Name: "count"}, X: w}, Y: &ast.Int{Value: 0}}
	}
	return g.gen([]string{"C", "p", "q"}, frame, func(b *builder) []ast.Expr {
		d := max(g.cfg.MaxDepth-2, 1)
		c, elem := b.collection(b.root(), d)
		if c == nil {
			return nil
		}
		sc := append(b.root(), elem)
		return []ast.Expr{c, b.boolean(sc, d, true), b.boolean(sc, d, true)}
	})
}

// HasCollections reports whether the context's root has a collection
// field (in the generator's edition), which Filtered needs.
func (g *Generator) HasCollections() bool {
	b := &builder{g: g}
	return len(b.fields(b.root(), kindIs(schema.Collection))) > 0
}

// builder generates trees from one random source.
type builder struct {
	g *Generator
	r *rand.Rand
}

// scopes is the stack of objects bare names resolve in, innermost last.
type scopes []*schema.Object

func (b *builder) root() scopes { return scopes{b.g.ctx.Root} }

func (b *builder) chance(p float64) bool { return b.r.Float64() < p }

func (b *builder) intn(n int) int { return b.r.Intn(n) }

// choose picks an index with the given weights; weight 0 is never picked.
func (b *builder) choose(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := b.r.Intn(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

func pick[T any](b *builder, xs []T) T { return xs[b.r.Intn(len(xs))] }

// pickOp returns one of the operators ops, drawing a number only when
// there is a choice (a class of one operator, such as division, draws
// none, as when it was written out).
func pickOp(b *builder, ops []ast.Op) ast.Op {
	if len(ops) == 1 {
		return ops[0]
	}
	return pick(b, ops)
}

func kindIs(k schema.Kind) func(*schema.Field) bool {
	return func(f *schema.Field) bool { return f.Type.Kind == k }
}

// fields lists the fields a bare name reaches from sc that satisfy ok: an
// outer field whose key an inner scope also has is shadowed and left out,
// and enterprise fields are left out of the standard edition.
func (b *builder) fields(sc scopes, ok func(*schema.Field) bool) []*schema.Field {
	seen := map[string]bool{}
	var out []*schema.Field
	for i := len(sc) - 1; i >= 0; i-- {
		for _, f := range sc[i].Fields {
			if seen[f.Key] {
				continue
			}
			seen[f.Key] = true
			if f.Edition > b.g.cfg.Edition || !ok(f) {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// ident spells a field name: mostly as documented, sometimes in camelCase
// or upper case (names resolve case-insensitively by their camelCase
// form).
func (b *builder) ident(name string) *ast.Ident {
	switch b.choose(6, 1, 1) {
	case 1:
		words := strings.Fields(name)
		for i := 1; i < len(words); i++ {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
		return &ast.Ident{Name: strings.Join(words, "")}
	case 2:
		return &ast.Ident{Name: strings.ToUpper(name)}
	}
	return &ast.Ident{Name: name}
}

func (b *builder) field(f *schema.Field) ast.Expr { return b.ident(f.Name) }

// pickField picks one of fs, the fields that sc reaches, favouring the
// innermost scope: inside `where`, names of the element are the usual case.
func (b *builder) pickField(sc scopes, fs []*schema.Field) *schema.Field {
	if len(sc) > 1 && b.chance(0.7) {
		var inner []*schema.Field
		for _, f := range fs {
			if g, ok := sc[len(sc)-1].Field(f.Name); ok && g == f {
				inner = append(inner, f)
			}
		}
		if len(inner) > 0 {
			return pick(b, inner)
		}
	}
	return pick(b, fs)
}

func (b *builder) count(x ast.Expr) ast.Expr {
	return &ast.Member{Name: &ast.Ident{Name: pick(b, []string{"count", "count", "count", "COUNT", "Count"})}, X: x}
}

// ---- literals ----

func (b *builder) intLit() ast.Expr {
	if b.chance(0.02) {
		return &ast.Int{Value: pick(b, b.g.pools.bigInts)}
	}
	return &ast.Int{Value: pick(b, b.g.pools.smallInts)}
}

func (b *builder) floatLit() ast.Expr { return &ast.Float{Value: pick(b, b.g.pools.floats)} }

// strLit is a string literal; now and then with a byte that is not UTF-8
// (the parser takes one as written; PostgreSQL and MariaDB refuse it).
func (b *builder) strLit() ast.Expr {
	s := b.g.pools.text(b.r)
	if b.chance(0.03) {
		s += pick(b, []string{"\x83", "\xa9", "\xff"})
	}
	return &ast.String{Value: s}
}

func (b *builder) timeLit() ast.Expr { return &ast.Datetime{Text: pick(b, b.g.pools.timeTexts)} }

func (b *builder) userMention() ast.Expr {
	return &ast.Mention{Kind: "user", Value: pick(b, b.g.pools.users).Login}
}

func (b *builder) langMention() ast.Expr {
	return &ast.Mention{Kind: "language", Value: pick(b, b.g.pools.languages)}
}

// ---- bool ----

// boolean generates a bool expression in scope sc of at most d levels.
// also allows a nullable datetime that stands as a bool (`translation
// updated`); it is false for the branches of `if`, where such a value
// would make the `if` a datetime.
func (b *builder) boolean(sc scopes, d int, also bool) ast.Expr {
	if d <= 0 {
		return b.boolLeaf(sc, also)
	}
	switch b.choose(3, 2, 4, 6, 1, 2, 2, 1, 3) {
	case 0:
		return b.boolLeaf(sc, also)
	case 1:
		return &ast.Unary{Op: ast.OpNot, X: b.boolean(sc, d-1, true)}
	case 2:
		return &ast.Binary{Op: pick(b, b.g.pools.logicOps), X: b.boolean(sc, d-1, true), Y: b.boolean(sc, d-1, true)}
	case 3:
		return b.compare(sc, d-1)
	case 4:
		t := b.orderedTriple(sc, d-1)
		return &ast.Between{X: t[0], Lo: t[1], Hi: t[2]}
	case 5:
		return &ast.Binary{Op: pickOp(b, b.g.pools.textOps), X: b.textual(sc, d-1), Y: b.textual(sc, d-1)}
	case 6:
		return b.with(sc, d-1)
	case 7:
		return &ast.If{Cond: b.boolean(sc, d-1, true), Then: b.boolean(sc, d-1, false), Else: b.boolean(sc, d-1, false)}
	default:
		c, _ := b.collection(sc, d-1)
		if c == nil {
			return b.compare(sc, d-1)
		}
		return &ast.Binary{Op: pick(b, b.g.pools.cmpOps), X: b.count(c), Y: &ast.Int{Value: int64(b.intn(3))}}
	}
}

func (b *builder) boolLeaf(sc scopes, also bool) ast.Expr {
	fs := b.fields(sc, func(f *schema.Field) bool { return f.Type.Kind == schema.Bool || (also && f.BoolAlso) })
	if len(fs) > 0 && b.chance(0.6) {
		return b.field(b.pickField(sc, fs))
	}
	// A comparison of leaves (the TM segment root has no bool field).
	return b.compare(sc, 0)
}

// compare generates a comparison of operands of one kind.
func (b *builder) compare(sc scopes, d int) ast.Expr {
	boolEq := 1
	if d <= 0 {
		boolEq = 0 // bool operands of a leaf comparison would recurse
	}
	switch b.choose(4, 3, 2, boolEq, 2) {
	case 0:
		return &ast.Binary{Op: pick(b, b.g.pools.cmpOps), X: b.number(sc, d), Y: b.number(sc, d)}
	case 1:
		if fs := b.fields(sc, func(f *schema.Field) bool { return len(f.Enum) > 0 }); len(fs) > 0 && b.chance(0.4) {
			f := b.pickField(sc, fs)
			v := pick(b, f.Enum)
			if b.chance(0.1) {
				v = strings.ToUpper(v) // an unknown value: a warning, not an error
			}
			return &ast.Binary{Op: pick(b, b.g.pools.cmpOps), X: b.field(f), Y: &ast.String{Value: v}}
		}
		return &ast.Binary{Op: pick(b, b.g.pools.cmpOps), X: b.textual(sc, d), Y: b.textual(sc, d)}
	case 2:
		return &ast.Binary{Op: pick(b, b.g.pools.cmpOps), X: b.datetime(sc, d), Y: b.datetime(sc, d)}
	case 3:
		return &ast.Binary{Op: pick(b, b.g.pools.eqOps), X: b.boolean(sc, d, true), Y: b.boolean(sc, d, true)}
	default:
		x := b.user(sc, d)
		var y ast.Expr
		if b.chance(0.5) {
			y = b.user(sc, d)
		} else {
			y = b.integer(sc, d)
		}
		if b.chance(0.5) {
			x, y = y, x
		}
		return &ast.Binary{Op: pick(b, b.g.pools.eqOps), X: x, Y: y}
	}
}

// orderedTriple generates x, lo, hi of one ordered kind.
func (b *builder) orderedTriple(sc scopes, d int) []ast.Expr {
	var gen func(scopes, int) ast.Expr
	switch b.choose(3, 2, 2) {
	case 0:
		gen = b.number
	case 1:
		gen = b.textual
	default:
		gen = b.datetime
	}
	return []ast.Expr{gen(sc, d), gen(sc, d), gen(sc, d)}
}

// with generates X with (P) over a collection, an object or a user.
func (b *builder) with(sc scopes, d int) ast.Expr {
	var x ast.Expr
	var obj *schema.Object
	switch b.choose(4, 2, 1) {
	case 0:
		x, obj = b.collection(sc, d)
	case 1:
		if fs := b.fields(sc, kindIs(schema.Record)); len(fs) > 0 {
			f := pick(b, fs)
			x, obj = b.field(f), f.Type.Obj
		}
	}
	if x == nil {
		x, obj = b.user(sc, d), b.g.cat.UserObj
	}
	return &ast.Filter{Kind: ast.With, X: x, Pred: b.boolean(append(sc[:len(sc):len(sc)], obj), d, true)}
}

// collection generates a collection (a field, or a field filtered by
// where) and returns its element; nil when sc reaches no collection.
func (b *builder) collection(sc scopes, d int) (ast.Expr, *schema.Object) {
	fs := b.fields(sc, kindIs(schema.Collection))
	if len(fs) == 0 {
		return nil, nil
	}
	f := b.pickField(sc, fs)
	var x ast.Expr = b.field(f)
	elem := f.Type.Obj
	for d > 0 && b.chance(0.4) {
		x = &ast.Filter{Kind: ast.Where, X: x, Pred: b.boolean(append(sc[:len(sc):len(sc)], elem), d-1, true)}
		d--
	}
	return x, elem
}

// ---- numbers ----

func (b *builder) number(sc scopes, d int) ast.Expr {
	if b.chance(0.7) {
		return b.integer(sc, d)
	}
	return b.float(sc, d)
}

func (b *builder) intLeaf(sc scopes) ast.Expr {
	fs := b.fields(sc, kindIs(schema.Int))
	switch b.choose(3, 3, 2) {
	case 0:
		if len(fs) > 0 {
			return b.field(b.pickField(sc, fs))
		}
	case 2:
		if cs := b.fields(sc, kindIs(schema.Collection)); len(cs) > 0 {
			return b.count(b.field(b.pickField(sc, cs)))
		}
	}
	return b.intLit()
}

func (b *builder) integer(sc scopes, d int) ast.Expr {
	if d <= 0 {
		return b.intLeaf(sc)
	}
	switch b.choose(4, 3, 2, 2, 1, 1) {
	case 1:
		if c, _ := b.collection(sc, d-1); c != nil {
			return b.count(c)
		}
	case 2:
		if m := b.member(sc, d-1, schema.Int); m != nil {
			return m
		}
	case 3:
		return &ast.Binary{Op: pick(b, b.g.pools.arithOps), X: b.integer(sc, d-1), Y: b.integer(sc, d-1)}
	case 4:
		return &ast.Unary{Op: ast.OpNeg, X: b.integer(sc, d-1)}
	case 5:
		return &ast.If{Cond: b.boolean(sc, d-1, true), Then: b.integer(sc, d-1), Else: b.integer(sc, d-1)}
	}
	return b.intLeaf(sc)
}

func (b *builder) float(sc scopes, d int) ast.Expr {
	if d <= 0 {
		return b.floatLit()
	}
	switch b.choose(3, 2, 2, 1, 1) {
	case 1:
		x, y := b.float(sc, d-1), b.number(sc, d-1)
		if b.chance(0.5) {
			x, y = y, x
		}
		return &ast.Binary{Op: pick(b, b.g.pools.arithOps), X: x, Y: y}
	case 2:
		return &ast.Binary{Op: pickOp(b, b.g.pools.divOps), X: b.number(sc, d-1), Y: b.number(sc, d-1)}
	case 3:
		return &ast.Unary{Op: ast.OpNeg, X: b.float(sc, d-1)}
	case 4:
		return &ast.If{Cond: b.boolean(sc, d-1, true), Then: b.float(sc, d-1), Else: b.number(sc, d-1)}
	}
	return b.floatLit()
}

// ---- strings, languages, datetimes, users ----

// textual is a string or a language: they compare with each other.
func (b *builder) textual(sc scopes, d int) ast.Expr {
	if b.chance(0.8) {
		return b.str(sc, d)
	}
	return b.language(sc, d)
}

func (b *builder) str(sc scopes, d int) ast.Expr {
	if d > 0 {
		switch b.choose(5, 2, 1) {
		case 1:
			if m := b.member(sc, d-1, schema.String); m != nil {
				return m
			}
		case 2:
			return &ast.If{Cond: b.boolean(sc, d-1, true), Then: b.str(sc, d-1), Else: b.str(sc, d-1)}
		}
	}
	if fs := b.fields(sc, kindIs(schema.String)); len(fs) > 0 && b.chance(0.6) {
		return b.field(b.pickField(sc, fs))
	}
	return b.strLit()
}

func (b *builder) language(sc scopes, d int) ast.Expr {
	if d > 0 && b.chance(0.1) {
		return &ast.If{Cond: b.boolean(sc, d-1, true), Then: b.language(sc, d-1), Else: b.language(sc, d-1)}
	}
	if fs := b.fields(sc, kindIs(schema.Language)); len(fs) > 0 && b.chance(0.6) {
		return b.field(b.pickField(sc, fs))
	}
	return b.langMention()
}

func (b *builder) datetime(sc scopes, d int) ast.Expr {
	if d > 0 && b.chance(0.1) {
		return &ast.If{Cond: b.boolean(sc, d-1, true), Then: b.datetime(sc, d-1), Else: b.datetime(sc, d-1)}
	}
	if fs := b.fields(sc, kindIs(schema.Datetime)); len(fs) > 0 && b.chance(0.6) {
		return b.field(b.pickField(sc, fs))
	}
	return b.timeLit()
}

func (b *builder) user(sc scopes, d int) ast.Expr {
	if d > 0 && b.chance(0.1) {
		return &ast.If{Cond: b.boolean(sc, d-1, true), Then: b.user(sc, d-1), Else: b.user(sc, d-1)}
	}
	if fs := b.fields(sc, kindIs(schema.User)); len(fs) > 0 && b.chance(0.7) {
		return b.field(b.pickField(sc, fs))
	}
	return b.userMention()
}

// member generates `M of X` of kind k: a member of an object field (file,
// branch) or of a user; nil when none has a member of kind k.
func (b *builder) member(sc scopes, d int, k schema.Kind) ast.Expr {
	type source struct {
		x   func() ast.Expr
		obj *schema.Object
	}
	var srcs []source
	for _, f := range b.fields(sc, kindIs(schema.Record)) {
		srcs = append(srcs, source{func() ast.Expr { return b.field(f) }, f.Type.Obj})
	}
	srcs = append(srcs, source{func() ast.Expr { return b.user(sc, d) }, b.g.cat.UserObj})
	s := pick(b, srcs)
	var ms []*schema.Field
	for _, f := range s.obj.Fields {
		if f.Type.Kind == k && f.Edition <= b.g.cfg.Edition {
			ms = append(ms, f)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	return &ast.Member{Name: b.ident(pick(b, ms).Name), X: s.x()}
}
