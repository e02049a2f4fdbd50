package typecheck

import (
	"unicode"
	"unicode/utf8"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// The core IR is the checked IR after one rewrite pass, Lower, that applies
// the language's rule table (docs/language.md, "The core rules"). The back
// ends (package eval, package compile, the reference interpreter) run the
// core IR and know none of these rules:
//
//   - some/none/all: a count compared with a constant that only says
//     whether the collection is empty becomes Exists (or Not of Exists);
//     count of X = count of X where (P) becomes "no element of X fails P"
//     (ruleCount, ruleEvery);
//   - derived booleans: a field that is a test of another Go field
//     (`type is plain`, `is visible`, `is up`) becomes that test on its
//     base field (ruleDerived);
//   - `id of` a user is the user value itself (ruleUserID);
//   - nullability: whether each core node can be absent (Nullable).
//
// The case folding of a case-insensitive contains (FoldRune) is the other
// rule every back end shares.

// Exists is "X has some element", X a collection (possibly filtered by
// where): the core form of `count of X > 0` and its equivalents. "X has no
// element" is Not of Exists.
type Exists struct {
	X  Node
	Sp diag.Span
}

func (n *Exists) Type() schema.Type { return schema.TBool }
func (n *Exists) Span() diag.Span   { return n.Sp }

// Lower rewrites the checked tree n of a query binding scopes scopes into
// the core IR and returns it with the number of scopes the core tree binds
// (at least scopes). The checked tree is left as it is.
func Lower(n Node, scopes int) (Node, int) {
	if n == nil {
		return nil, scopes
	}
	l := &lowerer{scopes: scopes}
	return l.node(n, 0), l.scopes
}

// coreOf returns q's core tree, lowering Root when Check did not.
func coreOf(q *Query) (Node, int) {
	if q.Core != nil {
		return q.Core, max(q.CoreScopes, q.Scopes)
	}
	return Lower(q.Root, q.Scopes)
}

// CoreOf returns the core tree of q and the number of scopes it binds: what
// a back end runs. It is nil for a query with errors.
func CoreOf(q *Query) (Node, int) {
	if q == nil || q.Root == nil {
		return nil, 0
	}
	return coreOf(q)
}

type lowerer struct {
	scopes int
}

// node lowers n, which sits where scopes 0..depth are bound.
func (l *lowerer) node(n Node, depth int) Node {
	switch n := n.(type) {
	case *Field:
		if m := ruleDerived(n); m != nil {
			return m
		}
		return n
	case *Member:
		x := l.node(n.X, depth)
		if m := ruleUserID(n, x); m != nil {
			return m
		}
		if isDerived(n.F) {
			return l.derivedMember(n, x, depth)
		}
		return &Member{F: n.F, X: x, Sp: n.Sp}
	case *Count:
		return &Count{X: l.node(n.X, depth), Sp: n.Sp}
	case *Filter:
		return &Filter{Kind: n.Kind, X: l.node(n.X, depth), Pred: l.node(n.Pred, n.Scope), Scope: n.Scope, Elem: n.Elem, Sp: n.Sp}
	case *Not:
		return &Not{X: l.node(n.X, depth), Sp: n.Sp}
	case *Logic:
		return &Logic{Op: n.Op, X: l.node(n.X, depth), Y: l.node(n.Y, depth), Sp: n.Sp}
	case *Arith:
		return &Arith{Op: n.Op, X: l.node(n.X, depth), Y: l.node(n.Y, depth), T: n.T, Sp: n.Sp}
	case *Neg:
		return &Neg{X: l.node(n.X, depth), T: n.T, Sp: n.Sp}
	case *Compare:
		if m := ruleCount(n); m != nil {
			return l.node(m, depth)
		}
		if m := ruleEvery(n); m != nil {
			return l.node(m, depth)
		}
		return &Compare{Op: n.Op, X: l.node(n.X, depth), Y: l.node(n.Y, depth), Operand: n.Operand, Sp: n.Sp}
	case *Between:
		return &Between{X: l.node(n.X, depth), Lo: l.node(n.Lo, depth), Hi: l.node(n.Hi, depth), Operand: n.Operand, Sp: n.Sp}
	case *Contains:
		return &Contains{X: l.node(n.X, depth), Sub: l.node(n.Sub, depth), Fold: n.Fold, Sp: n.Sp}
	case *If:
		return &If{Cond: l.node(n.Cond, depth), Then: l.node(n.Then, depth), Else: l.node(n.Else, depth), T: n.T, Sp: n.Sp}
	case *ToFloat:
		return &ToFloat{X: l.node(n.X, depth), Sp: n.Sp}
	case *IsSet:
		return &IsSet{X: l.node(n.X, depth), Sp: n.Sp}
	case *Exists:
		return &Exists{X: l.node(n.X, depth), Sp: n.Sp}
	}
	return n // Const, and nodes a later version adds
}

// ruleCount: a count is never negative, so `count of X` compared with a
// constant k is "X has some element" when the comparison holds for every
// count from 1 up and not for 0 (> 0, >= 1, != 0), and "X has no element"
// when it holds for 0 alone (= 0, <= 0, < 1). The constant may stand on
// either side. Other counts stay counts.
func ruleCount(n *Compare) Node {
	if n.Operand != schema.Int {
		return nil
	}
	cnt, k, op := countVsConst(n)
	if cnt == nil {
		return nil
	}
	ex := &Exists{X: cnt.X, Sp: n.Sp}
	switch {
	case k == 0 && (op == ast.OpGt || op == ast.OpNe), k == 1 && op == ast.OpGe:
		return ex
	case k == 0 && (op == ast.OpEq || op == ast.OpLe), k == 1 && op == ast.OpLt:
		return &Not{X: ex, Sp: n.Sp}
	}
	return nil
}

// countVsConst splits `count of X op k` (or `k op count of X`, mirrored)
// for an int constant k.
func countVsConst(n *Compare) (*Count, int64, ast.Op) {
	op := n.Op
	cnt, ok := n.X.(*Count)
	k, kok := n.Y.(*Const)
	if !ok || !kok {
		cnt, ok = n.Y.(*Count)
		k, kok = n.X.(*Const)
		op = op.Mirror()
	}
	if !ok || !kok || k.T.Kind != schema.Int || k.Unresolved {
		return nil, 0, op
	}
	return cnt, k.I, op
}

// ruleEvery: `count of X = count of X where (P)` (either side first) holds
// exactly when every element of X satisfies P, that is when X has no
// element where P fails: Not(Exists(X where not P)); != is its negation.
func ruleEvery(n *Compare) Node {
	if n.Op != ast.OpEq && n.Op != ast.OpNe {
		return nil
	}
	cx, ok1 := n.X.(*Count)
	cy, ok2 := n.Y.(*Count)
	if !ok1 || !ok2 {
		return nil
	}
	for _, pair := range [2][2]Node{{cx.X, cy.X}, {cy.X, cx.X}} {
		all, filtered := pair[0], pair[1]
		f, ok := filtered.(*Filter)
		if !ok || f.Kind != ast.Where || !sameSource(all, f.X) {
			continue
		}
		failing := &Filter{Kind: ast.Where, X: all, Pred: &Not{X: f.Pred, Sp: f.Pred.Span()}, Scope: f.Scope, Elem: f.Elem, Sp: f.Sp}
		some := &Exists{X: failing, Sp: n.Sp}
		if n.Op == ast.OpNe {
			return some
		}
		return &Not{X: some, Sp: n.Sp}
	}
	return nil
}

// sameSource reports whether a and b denote the same collection: the same
// field of the same scope, or the same member of the same source.
func sameSource(a, b Node) bool {
	switch a := a.(type) {
	case *Field:
		b, ok := b.(*Field)
		return ok && a.F == b.F && a.Obj == b.Obj && a.Scope == b.Scope
	case *Member:
		b, ok := b.(*Member)
		return ok && a.F == b.F && sameSource(a.X, b.X)
	}
	return false
}

// isDerived reports whether f is a derived boolean: a test of another Go
// field rather than a value of its own (schema.Field Equals and Negate).
func isDerived(f *schema.Field) bool { return f.Equals != "" || f.Negate }

// DerivedBase is the field a derived boolean f tests, nil when f is not
// one: the same Go field, read as the string (Equals) or bool (Negate) it
// holds. It keeps the derived field's name, which is what a SQL mapping
// names the column by; the mapping's DDL types the column by it.
func DerivedBase(f *schema.Field) *schema.Field {
	if !isDerived(f) {
		return nil
	}
	t := schema.TBool
	if f.Equals != "" {
		t = schema.TString
	}
	return &schema.Field{Name: f.Name, Key: f.Key, Type: t, GoName: f.GoName, Doc: f.Doc, Edition: f.Edition}
}

// ruleDerived: a derived boolean field is its test on the base field:
// `type is plain` is `type = "plain"` (Equals) and `is visible` is `not is
// hidden` (Negate). The base is never absent (the Go field is a plain
// string or bool).
func ruleDerived(n *Field) Node {
	if !isDerived(n.F) {
		return nil
	}
	base := &Field{F: DerivedBase(n.F), Obj: n.Obj, Scope: n.Scope, Sp: n.Sp}
	if n.F.Equals != "" {
		return &Compare{Op: ast.OpEq, X: base, Y: &Const{T: schema.TString, S: n.F.Equals, Sp: n.Sp}, Operand: schema.String, Sp: n.Sp}
	}
	return &Not{X: base, Sp: n.Sp}
}

// derivedMember lowers `D of X` for a derived boolean D: X is an object
// that may be absent, and a member of an absent object is false (not the
// negation of an absent base), so it becomes `X with (D)` with D lowered in
// a new scope.
func (l *lowerer) derivedMember(n *Member, x Node, depth int) Node {
	obj := x.Type().Obj
	scope := depth + 1
	l.scopes = max(l.scopes, scope+1)
	pred := ruleDerived(&Field{F: n.F, Obj: obj, Scope: scope, Sp: n.Sp})
	return &Filter{Kind: ast.With, X: x, Pred: pred, Scope: scope, Elem: obj, Sp: n.Sp}
}

// ruleUserID: `id of U`, U a user, is U itself: a user value is its id, so
// reading it needs no user directory and is absent only when U is. x is U
// lowered.
func ruleUserID(n *Member, x Node) Node {
	if x.Type().Kind != schema.User || n.F.Key != "id" || (n.F.Type.Kind != schema.Int && n.F.Type.Kind != schema.User) {
		return nil
	}
	return x
}

// FoldRune is the case folding of a case-insensitive contains: the
// representative of r's Unicode simple folding orbit (unicode.SimpleFold),
// its smallest member. Two strings match case-insensitively where their
// runes' representatives do; it is the rule strings.EqualFold applies.
func FoldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}
