package typecheck

import (
	"math"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// Node is a checked expression: names resolved to schema fields, every
// operand converted to the operation's kind, so that back ends (the
// evaluator, the SQL compiler) never rediscover types.
//
// Absent values follow language.md section 4 (two-valued logic): a node of a
// nullable type may yield "no value"; every bool node yields true or false.
type Node interface {
	Type() schema.Type
	Span() diag.Span
}

// Const is a literal or a resolved mention.
//
//	Int, User: I (a user id for User)
//	Float:     F
//	String, Language: S (the code for Language)
//	Datetime:  I (Unix seconds, schema.Time)
//
// For a User mention that could not be resolved (no user directory was
// given), Unresolved is true and S holds the login.
type Const struct {
	T          schema.Type
	I          int64
	F          float64
	S          string
	Unresolved bool
	Sp         diag.Span
}

// Field is a bare field name, resolved to the scope it belongs to: Scope 0
// is the context's root object, Scope n the element or object that the n-th
// enclosing where/with binds.
type Field struct {
	F     *schema.Field
	Obj   *schema.Object
	Scope int
	Sp    diag.Span
}

// Member is F of X, where X is an object (or a user reference) and F one of
// its fields. If X is absent, so is the member.
type Member struct {
	F  *schema.Field
	X  Node
	Sp diag.Span
}

// Count is count of X, X a collection; absent collections count 0.
type Count struct {
	X  Node
	Sp diag.Span
}

// Filter is X where Pred (type: the collection X, filtered) or X with Pred
// (type: bool; for an object, Pred holds in its scope; for a collection,
// some element satisfies Pred). Pred is evaluated with the element or object
// bound at scope Scope.
type Filter struct {
	Kind  ast.FilterKind
	X     Node
	Pred  Node
	Scope int
	Elem  *schema.Object
	Sp    diag.Span
}

// Not is logical negation.
type Not struct {
	X  Node
	Sp diag.Span
}

// Logic is and, or, xor.
type Logic struct {
	Op   ast.Op
	X, Y Node
	Sp   diag.Span
}

// Arith is + - * / on numbers. T is Int or Float; both operands are of T
// (ints converted with ToFloat where needed). Division is always Float;
// division by zero is absent.
type Arith struct {
	Op   ast.Op
	X, Y Node
	T    schema.Type
	Sp   diag.Span
}

// Neg is unary minus; T is Int or Float.
type Neg struct {
	X  Node
	T  schema.Type
	Sp diag.Span
}

// Compare is = != < <= > >=. Operand is the kind both sides have after
// conversion: Bool, Int (also user ids), Float, String (also language codes)
// or Datetime. = is null-safe (absent = absent is true); != is not =;
// ordering with an absent operand is false.
type Compare struct {
	Op      ast.Op
	X, Y    Node
	Operand schema.Kind
	Sp      diag.Span
}

// Between is X between Lo and Hi, i.e. X >= Lo and X <= Hi; false when any
// operand is absent.
type Between struct {
	X, Lo, Hi Node
	Operand   schema.Kind
	Sp        diag.Span
}

// Contains is X contains Sub on strings; false when either is absent. Fold
// makes it case-insensitive (Unicode simple folding).
type Contains struct {
	X, Sub Node
	Fold   bool
	Sp     diag.Span
}

// If is if Cond then Then else Else; an absent or false Cond takes Else.
type If struct {
	Cond, Then, Else Node
	T                schema.Type
	Sp               diag.Span
}

// ToFloat converts an int operand to float.
type ToFloat struct {
	X  Node
	Sp diag.Span
}

// IsSet turns a nullable value standing as a bool into "the value is
// present" (a BoolAlso datetime used as a predicate).
type IsSet struct {
	X  Node
	Sp diag.Span
}

func (n *Const) Type() schema.Type    { return n.T }
func (n *Field) Type() schema.Type    { return n.F.Type }
func (n *Member) Type() schema.Type   { return n.F.Type }
func (n *Count) Type() schema.Type    { return schema.TInt }
func (n *Filter) Type() schema.Type   { return filterType(n) }
func (n *Not) Type() schema.Type      { return schema.TBool }
func (n *Logic) Type() schema.Type    { return schema.TBool }
func (n *Arith) Type() schema.Type    { return n.T }
func (n *Neg) Type() schema.Type      { return n.T }
func (n *Compare) Type() schema.Type  { return schema.TBool }
func (n *Between) Type() schema.Type  { return schema.TBool }
func (n *Contains) Type() schema.Type { return schema.TBool }
func (n *If) Type() schema.Type       { return n.T }
func (n *ToFloat) Type() schema.Type  { return schema.TFloat }
func (n *IsSet) Type() schema.Type    { return schema.TBool }

func filterType(n *Filter) schema.Type {
	if n.Kind == ast.With {
		return schema.TBool
	}
	if n.Elem != nil {
		// The collection X, filtered: read off the node, so that a chain
		// of n where costs O(1) per Type, not O(n).
		return schema.Type{Kind: schema.Collection, Obj: n.Elem}
	}
	return n.X.Type()
}

func (n *Const) Span() diag.Span    { return n.Sp }
func (n *Field) Span() diag.Span    { return n.Sp }
func (n *Member) Span() diag.Span   { return n.Sp }
func (n *Count) Span() diag.Span    { return n.Sp }
func (n *Filter) Span() diag.Span   { return n.Sp }
func (n *Not) Span() diag.Span      { return n.Sp }
func (n *Logic) Span() diag.Span    { return n.Sp }
func (n *Arith) Span() diag.Span    { return n.Sp }
func (n *Neg) Span() diag.Span      { return n.Sp }
func (n *Compare) Span() diag.Span  { return n.Sp }
func (n *Between) Span() diag.Span  { return n.Sp }
func (n *Contains) Span() diag.Span { return n.Sp }
func (n *If) Span() diag.Span       { return n.Sp }
func (n *ToFloat) Span() diag.Span  { return n.Sp }
func (n *IsSet) Span() diag.Span    { return n.Sp }

// Nullable reports whether n can be absent: a nullable field, a member (of
// an object that may be absent, or of a user read from the directory), a
// where over something nullable, arithmetic with a nullable operand, a
// division (by zero), integer arithmetic (overflow), an if with a nullable branch, and a user mention that
// was not resolved (compiled to a lookup that may find no user). Every bool
// node but a field and a member is two-valued. This is the one definition
// of nullability every back end reads.
func Nullable(n Node) bool {
	switch n := n.(type) {
	case *Const:
		return n.Unresolved
	case *Count, *Not, *Logic, *Compare, *Between, *Contains, *IsSet, *Exists:
		return false
	case *Field:
		return n.F.Nullable
	case *Filter:
		return n.Kind == ast.Where && Nullable(n.X)
	case *Member:
		return true
	case *Neg:
		return MayOverflow(n) || Nullable(n.X)
	case *ToFloat:
		return Nullable(n.X)
	case *Arith:
		// A division may be by zero; integer +, - and * may overflow.
		return ArithmeticOf(n.Op).Partial || MayOverflow(n) || Nullable(n.X) || Nullable(n.Y)
	case *If:
		return Nullable(n.Then) || Nullable(n.Else)
	}
	return true
}

// MayOverflow reports whether n is integer arithmetic whose exact result
// may leave the int64 range, which makes it absent (the language's overflow
// rule, docs/language.md "Numbers"): integer +, - and *, and the negation
// of anything but a constant (a literal is at most 2^63-1, whose negation
// fits).
func MayOverflow(n Node) bool {
	switch n := n.(type) {
	case *Arith:
		return n.T.Kind == schema.Int && !ArithmeticOf(n.Op).Float
	case *Neg:
		if n.T.Kind != schema.Int {
			return false
		}
		k, ok := n.X.(*Const)
		return !ok || k.I == math.MinInt64
	}
	return false
}

// Query is a checked query: the IR, the tree it came from, and every
// diagnostic. When Diags has errors, Root may be nil or partial and must not
// be run.
type Query struct {
	Source  string
	Context *schema.Context
	AST     ast.Expr
	Root    Node
	Diags   diag.List
	// Scopes is the number of scopes the query binds (1 + deepest where/with
	// nesting), so a back end can size its scope frame.
	Scopes int
	// Core is Root lowered into the core IR (see Lower): what the back ends
	// run. CoreScopes is the number of scopes it binds (at least Scopes).
	Core       Node
	CoreScopes int
	// Names maps each identifier of AST to the field it resolved to, so the
	// formatter can print documented spellings.
	Names map[*ast.Ident]*schema.Field
}

// Operands lists the direct operands of a checked node, in source order.
func Operands(n Node) []Node {
	switch n := n.(type) {
	case *Member:
		return []Node{n.X}
	case *Count:
		return []Node{n.X}
	case *Filter:
		return []Node{n.X, n.Pred}
	case *Not:
		return []Node{n.X}
	case *Logic:
		return []Node{n.X, n.Y}
	case *Arith:
		return []Node{n.X, n.Y}
	case *Neg:
		return []Node{n.X}
	case *Compare:
		return []Node{n.X, n.Y}
	case *Between:
		return []Node{n.X, n.Lo, n.Hi}
	case *Contains:
		return []Node{n.X, n.Sub}
	case *If:
		return []Node{n.Cond, n.Then, n.Else}
	case *ToFloat:
		return []Node{n.X}
	case *IsSet:
		return []Node{n.X}
	case *Exists:
		return []Node{n.X}
	}
	return nil
}

// WithOperands returns a copy of n whose direct operands are ops, in the
// order Operands lists them; a node without operands is returned as it
// is. With Operands it rebuilds a tree with some nodes replaced.
func WithOperands(n Node, ops []Node) Node {
	if len(ops) != len(Operands(n)) {
		return n
	}
	switch n := n.(type) {
	case *Member:
		c := *n
		c.X = ops[0]
		return &c
	case *Count:
		c := *n
		c.X = ops[0]
		return &c
	case *Filter:
		c := *n
		c.X, c.Pred = ops[0], ops[1]
		return &c
	case *Not:
		c := *n
		c.X = ops[0]
		return &c
	case *Logic:
		c := *n
		c.X, c.Y = ops[0], ops[1]
		return &c
	case *Arith:
		c := *n
		c.X, c.Y = ops[0], ops[1]
		return &c
	case *Neg:
		c := *n
		c.X = ops[0]
		return &c
	case *Compare:
		c := *n
		c.X, c.Y = ops[0], ops[1]
		return &c
	case *Between:
		c := *n
		c.X, c.Lo, c.Hi = ops[0], ops[1], ops[2]
		return &c
	case *Contains:
		c := *n
		c.X, c.Sub = ops[0], ops[1]
		return &c
	case *If:
		c := *n
		c.Cond, c.Then, c.Else = ops[0], ops[1], ops[2]
		return &c
	case *ToFloat:
		c := *n
		c.X = ops[0]
		return &c
	case *IsSet:
		c := *n
		c.X = ops[0]
		return &c
	case *Exists:
		c := *n
		c.X = ops[0]
		return &c
	}
	return n
}

// Inspect calls f on every node of the tree rooted at n, parents before
// their operands.
func Inspect(n Node, f func(Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, k := range Operands(n) {
		Inspect(k, f)
	}
}
