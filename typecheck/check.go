// Package typecheck resolves the names of a CroQL tree against the schema of
// one context, infers and checks types, resolves mentions, and lowers the
// tree into the checked IR (see Node) that the evaluator and the SQL compiler
// run. It reports every independent error it finds, each with a tight span
// and, where it can, a suggestion; a bad node is marked and checking goes on,
// so one mistake does not hide the next.
package typecheck

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// Config is what a check needs besides the tree.
type Config struct {
	// Catalog and Context are required.
	Catalog *schema.Catalog
	Context *schema.Context
	// Edition decides whether enterprise-only fields are allowed.
	Edition schema.Edition
	// Users maps logins to user ids. When nil, @user mentions are not
	// validated and stay unresolved (Const.Unresolved).
	Users map[string]int64
	// Languages is the set of known language codes. When nil, @language
	// mentions are not validated.
	Languages []string
	// Now is the clock 'today' is read from; time.Now when nil.
	Now func() time.Time
	// Location is the zone datetime literals without an offset are read in;
	// UTC when nil.
	Location *time.Location
	// FoldContains makes contains case-insensitive.
	FoldContains bool
	// MaxDiagnostics caps the diagnostics of one query (default 50).
	MaxDiagnostics int

	// users and languages are Users and Languages prepared for
	// suggestions by Prepare; Check builds them when it first needs them
	// otherwise.
	users, languages *Names
}

// Prepare returns cfg with its user logins and language codes prepared
// for did-you-mean suggestions (see Names), so that checking many queries
// with it does that work once: an environment calls it once. Users and
// Languages must not change afterwards.
func (cfg Config) Prepare() Config {
	if cfg.Users != nil {
		logins := make([]string, 0, len(cfg.Users))
		for l := range cfg.Users {
			logins = append(logins, l)
		}
		cfg.users = NewNames(logins)
	}
	if cfg.Languages != nil {
		cfg.languages = NewNames(cfg.Languages)
	}
	return cfg
}

// Rules of the logic diagnostics and warnings.
const (
	RuleUnknownField    = "unknown-field"
	RuleOtherContext    = "field-of-other-object"
	RuleEdition         = "enterprise-only"
	RuleNotBool         = "not-bool"
	RuleType            = "type-mismatch"
	RuleNotCollection   = "not-a-collection"
	RuleNotObject       = "not-an-object"
	RuleUnknownUser     = "unknown-user"
	RuleUnknownLanguage = "unknown-language"
	RuleBadDatetime     = "bad-datetime"
	RuleEnum            = "unknown-enum-value"
	RuleSingleQuoted    = "single-quoted-string"
	RuleTooMany         = "too-many-diagnostics"
)

type checker struct {
	cfg    Config
	src    string
	diags  diag.List
	scopes []*schema.Object
	max    int
	names  map[*ast.Ident]*schema.Field
	full   bool
	// suggested counts the diagnostics given suggestions by edit
	// distance (at most MaxSuggested).
	suggested int
	// path is the expressions being checked, the query first: where a
	// diagnostic's fix finds the condition a name stands in.
	path []ast.Expr
}

// suggest reports whether the next diagnostic may carry suggestions by
// edit distance, and counts it: not once the diagnostics are capped, and
// only for the first MaxSuggested.
func (c *checker) suggest() bool {
	if c.full || len(c.diags) >= c.cfg.MaxDiagnostics || c.suggested >= MaxSuggested {
		return false
	}
	c.suggested++
	return true
}

// Check checks the tree e parsed from src. The result's Diags holds every
// finding, sorted by position; Root is nil when there is an error.
func Check(cfg Config, src string, e ast.Expr) *Query {
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxDiagnostics <= 0 {
		cfg.MaxDiagnostics = 50
	}
	c := &checker{cfg: cfg, src: src, names: map[*ast.Ident]*schema.Field{}}
	q := &Query{Source: src, Context: cfg.Context, AST: e, Names: c.names}
	if e == nil || cfg.Context == nil || cfg.Catalog == nil {
		return q
	}
	c.scopes = []*schema.Object{cfg.Context.Root}
	c.max = 1
	root := c.check(e)
	if root != nil {
		root = c.toBool(root, e, "the query")
	}
	q.Diags = c.diags
	q.Diags.Sort()
	q.Scopes = c.max
	if !q.Diags.HasErrors() {
		q.Root = root
		q.Core, q.CoreScopes = Lower(root, q.Scopes)
	}
	return q
}

func (c *checker) report(d diag.Diagnostic) {
	if c.full {
		return
	}
	if len(c.diags) >= c.cfg.MaxDiagnostics {
		c.full = true
		c.diags = append(c.diags, diag.Errorf(diag.ClassLogic, RuleTooMany, d.Span,
			"too many problems; only the first %d are reported", c.cfg.MaxDiagnostics))
		return
	}
	c.diags = append(c.diags, d)
}

func (c *checker) errorf(rule string, sp diag.Span, format string, args ...any) diag.Diagnostic {
	return diag.Errorf(diag.ClassLogic, rule, sp, format, args...)
}

func (c *checker) text(sp diag.Span) string {
	if sp.Start < 0 || sp.End > len(c.src) || sp.Start > sp.End {
		return ""
	}
	return c.src[sp.Start:sp.End]
}

// check lowers e; it returns nil after reporting when e is wrong.
func (c *checker) check(e ast.Expr) Node {
	c.path = append(c.path, e)
	n := c.checkNode(e)
	c.path = c.path[:len(c.path)-1]
	return n
}

func (c *checker) checkNode(e ast.Expr) Node {
	switch n := e.(type) {
	case *ast.Ident:
		return c.ident(n)
	case *ast.Int:
		return &Const{T: schema.TInt, I: n.Value, Sp: n.Sp}
	case *ast.Float:
		return &Const{T: schema.TFloat, F: n.Value, Sp: n.Sp}
	case *ast.String:
		return &Const{T: schema.TString, S: n.Value, Sp: n.Sp}
	case *ast.Datetime:
		t, err := c.datetime(n)
		if err != nil {
			c.report(c.relativeDateDiag(n))
			return nil
		}
		return &Const{T: schema.TDatetime, I: int64(t), Sp: n.Sp}
	case *ast.Mention:
		return c.mention(n)
	case *ast.Unary:
		return c.unary(n)
	case *ast.Binary:
		return c.binary(n)
	case *ast.Between:
		return c.between(n)
	case *ast.Member:
		return c.member(n)
	case *ast.Filter:
		return c.filter(n)
	case *ast.If:
		return c.ifExpr(n)
	}
	c.report(c.errorf(RuleType, e.Span(), "unsupported expression %T", e))
	return nil
}

func (c *checker) datetime(n *ast.Datetime) (schema.Time, error) {
	if strings.EqualFold(strings.TrimSpace(n.Text), "today") {
		now := c.cfg.Now().In(c.cfg.Location)
		y, m, d := now.Date()
		return schema.TimeOf(time.Date(y, m, d, 0, 0, 0, 0, c.cfg.Location)), nil
	}
	t, err := schema.ParseTime(n.Text, c.cfg.Location)
	if err != nil {
		return 0, fmt.Errorf("datetime literal: %w", err)
	}
	return t, nil
}

func (c *checker) ident(n *ast.Ident) Node {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		f, ok := c.scopes[i].Field(n.Name)
		if !ok {
			continue
		}
		c.names[n] = f
		if f.Edition == schema.Enterprise && c.cfg.Edition < schema.Enterprise {
			c.report(c.errorf(RuleEdition, n.Sp, "`%s` is available in the enterprise edition only", f.Name).
				WithHint("query an enterprise organization, or remove this condition"))
			return nil
		}
		return &Field{F: f, Obj: c.scopes[i], Scope: i, Sp: n.Sp}
	}
	c.report(c.unknown(n, c.scopes))
	return nil
}

func (c *checker) mention(n *ast.Mention) Node {
	switch n.Kind {
	case "user":
		t := schema.Type{Kind: schema.User, Obj: c.cfg.Catalog.UserObj}
		if c.cfg.Users == nil {
			return &Const{T: t, S: n.Value, Unresolved: true, Sp: n.Sp}
		}
		id, ok := c.cfg.Users[n.Value]
		if !ok {
			d := c.errorf(RuleUnknownUser, n.Sp, "no user with login %q", n.Value)
			if c.suggest() {
				if c.cfg.users == nil {
					c.cfg = c.cfg.Prepare()
				}
				if best := c.cfg.users.Closest(n.Value, 3); len(best) > 0 {
					d = d.WithHint("did you mean %s?", quoteAll(best, "@user:"))
					for _, b := range best {
						d = d.WithFix(n.Sp, "@user:"+ast.Quote(b))
					}
				}
			}
			c.report(d)
			return nil
		}
		return &Const{T: t, I: id, S: n.Value, Sp: n.Sp}
	case "language":
		if c.cfg.Languages != nil && !slices.Contains(c.cfg.Languages, n.Value) {
			// Language codes are compared exactly by every back end:
			// a code that differs from the project's only in case
			// would check and never match.
			if code, ok := findFold(c.cfg.Languages, n.Value); ok {
				c.report(c.errorf(RuleUnknownLanguage, n.Sp, "no language with code %q in this project; codes are case-sensitive: did you mean %q?", n.Value, code).
					WithHint("write @language:%s", ast.Quote(code)).
					WithFix(n.Sp, "@language:"+ast.Quote(code)))
				return nil
			}
			d := c.errorf(RuleUnknownLanguage, n.Sp, "no language with code %q in this project", n.Value)
			if c.suggest() {
				if c.cfg.languages == nil {
					c.cfg = c.cfg.Prepare()
				}
				if best := c.cfg.languages.Closest(n.Value, 3); len(best) > 0 {
					d = d.WithHint("did you mean %s?", quoteAll(best, "@language:"))
					for _, b := range best {
						d = d.WithFix(n.Sp, "@language:"+ast.Quote(b))
					}
				}
			}
			c.report(d)
			return nil
		}
		return &Const{T: schema.TLanguage, S: n.Value, Sp: n.Sp}
	}
	c.report(c.errorf(RuleType, n.Sp, "unknown mention @%s", n.Kind).WithHint("mentions are @user:\"login\" and @language:\"code\""))
	return nil
}

// reportNil reports d and returns nil.
func (c *checker) reportNil(d diag.Diagnostic) Node {
	c.report(d)
	return nil
}

// toBool makes n usable where a bool is needed: a BoolAlso value becomes
// IsSet; anything else not bool is reported.
func (c *checker) toBool(n Node, e ast.Expr, where string) Node {
	t := n.Type()
	if t.Kind == schema.Bool {
		return n
	}
	if f := fieldOf(n); f != nil && f.BoolAlso {
		return &IsSet{X: n, Sp: n.Span()}
	}
	d := c.errorf(RuleNotBool, e.Span(), "%s is %s, expected bool", where, t)
	switch {
	case t.Kind == schema.Int && isCount(n):
		d = d.WithHint("compare the count: `%s > 0`", c.text(e.Span())).WithFix(e.Span(), c.text(e.Span())+" > 0")
	case isConst(n):
		lit, isString := e.(*ast.String)
		if fix, ok := c.bareText(c.text(e.Span())); ok && isString {
			d.Message = fmt.Sprintf("%s is the string %s, not a condition: the platform has no search by bare text", where, ast.Quote(lit.Value))
			return c.reportNil(d.WithHint("write `%s`", fix).WithSugarFix(e.Span(), fix))
		}
		d = d.WithHint("a query is a condition, for example `id of file = %s`", c.text(e.Span()))
	case t.Kind == schema.Collection:
		d = d.WithHint("a collection is not a condition: write `count of %s > 0`", c.text(e.Span())).
			WithFix(e.Span(), "count of "+c.text(e.Span())+" > 0")
	case t.IsNumeric() || t.Kind == schema.String || t.Kind == schema.Datetime:
		d = d.WithHint("compare it with a value, for example `%s = ...`", c.text(e.Span()))
	}
	c.report(d)
	return nil
}

func fieldOf(n Node) *schema.Field {
	switch n := n.(type) {
	case *Field:
		return n.F
	case *Member:
		return n.F
	}
	return nil
}

func isCount(n Node) bool { _, ok := n.(*Count); return ok }

func isConst(n Node) bool { _, ok := n.(*Const); return ok }

// unknownOp reports an operator the checker has no rule for (a row of
// ast.Syntax without its row of opRules).
func (c *checker) unknownOp(op ast.Op, sp diag.Span) Node {
	c.report(c.errorf(RuleType, sp, "operator `%s` has no type rule", op))
	return nil
}

func (c *checker) unary(n *ast.Unary) Node {
	r, ok := opRules[n.Op]
	if !ok || (r.class != ClassNot && r.class != ClassNeg) {
		return c.unknownOp(n.Op, n.Sp)
	}
	x := c.check(n.X)
	if x == nil {
		return nil
	}
	if r.class == ClassNot {
		x = c.toBool(x, n.X, fmt.Sprintf("the operand of `%s`", n.Op))
		if x == nil {
			return nil
		}
		return &Not{X: x, Sp: n.Sp}
	}
	if !x.Type().IsNumeric() {
		c.report(c.errorf(RuleType, n.X.Span(), "unary `%s` needs a number, got %s", n.Op, x.Type()))
		return nil
	}
	return &Neg{X: x, T: x.Type(), Sp: n.Sp}
}

// binary checks an infix operator by its row of opRules.
func (c *checker) binary(n *ast.Binary) Node {
	switch opRules[n.Op].class {
	case ClassLogic:
		return c.logic(n)
	case ClassArith:
		x, y := c.check(n.X), c.check(n.Y)
		if x == nil || y == nil {
			return nil
		}
		return c.arith(n, x, y)
	case ClassContains:
		return c.contains(n)
	case ClassEquality, ClassOrder:
		return c.compare(n, opRules[n.Op].class == ClassEquality)
	}
	return c.unknownOp(n.Op, n.OpSpan)
}

// logic checks and, or, xor: two conditions.
func (c *checker) logic(n *ast.Binary) Node {
	x, y := c.check(n.X), c.check(n.Y)
	if x != nil {
		x = c.toBool(x, n.X, fmt.Sprintf("the left operand of `%s`", n.Op))
	}
	if y != nil {
		y = c.toBool(y, n.Y, fmt.Sprintf("the right operand of `%s`", n.Op))
	}
	if x == nil || y == nil {
		return nil
	}
	return &Logic{Op: n.Op, X: x, Y: y, Sp: n.Sp}
}

// contains checks contains: two strings.
func (c *checker) contains(n *ast.Binary) Node {
	x, y := c.operand(n.X, n.Y), c.operand(n.Y, n.X)
	if x == nil || y == nil {
		return nil
	}
	ok := true
	for i, v := range []Node{x, y} {
		if k := v.Type().Kind; k != schema.String && k != schema.Language {
			side := []ast.Expr{n.X, n.Y}[i]
			c.report(c.errorf(RuleType, side.Span(), "`%s` needs strings, %s is %s", n.Op, c.text(side.Span()), v.Type()))
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return &Contains{X: x, Sub: y, Fold: c.cfg.FoldContains, Sp: n.Sp}
}

// compare checks a comparison: an equality (which also takes bools, users
// and languages) or an ordering.
func (c *checker) compare(n *ast.Binary, equality bool) Node {
	x, y := c.operand(n.X, n.Y), c.operand(n.Y, n.X)
	if x == nil || y == nil {
		return nil
	}
	x, y, kind, ok := c.unify(n, x, y, equality)
	if !ok {
		return nil
	}
	c.enumCheck(x, y)
	c.enumCheck(y, x)
	return &Compare{Op: n.Op, X: x, Y: y, Operand: kind, Sp: n.Sp}
}

// operand checks a comparison operand. A single-quoted literal that is not
// a datetime, compared with a string, is taken as a string with a warning.
func (c *checker) operand(e, other ast.Expr) Node {
	dt, ok := e.(*ast.Datetime)
	if !ok {
		return c.check(e)
	}
	if _, err := c.datetime(dt); err == nil {
		return c.check(e)
	}
	// Not a datetime: accept it as a string if the other side is one.
	saved := len(c.diags)
	o := c.check(other)
	c.diags = c.diags[:saved] // the other side is checked again by the caller
	if o != nil && (o.Type().Kind == schema.String || o.Type().Kind == schema.Language) {
		c.report(diag.Warnf(RuleSingleQuoted, dt.Sp, "'%s' is not a datetime; it is read as a string", dt.Text).
			WithHint("strings take double quotes: %s", ast.Quote(dt.Text)).
			WithFix(dt.Sp, ast.Quote(dt.Text)))
		return &Const{T: schema.TString, S: dt.Text, Sp: dt.Sp}
	}
	return c.check(e)
}

func (c *checker) arith(n *ast.Binary, x, y Node) Node {
	bad := false
	for i, v := range []Node{x, y} {
		if !v.Type().IsNumeric() {
			side := []ast.Expr{n.X, n.Y}[i]
			d := c.errorf(RuleType, side.Span(), "`%s` needs numbers, %s is %s", n.Op, c.text(side.Span()), v.Type())
			if n.Op == ast.OpAdd && v.Type().Kind == schema.String {
				d = d.WithHint("CroQL's + adds numbers; it does not join strings")
			}
			c.report(d)
			bad = true
		}
	}
	if bad {
		return nil
	}
	t := schema.TInt
	if opRules[n.Op].arith.Float || x.Type().Kind == schema.Float || y.Type().Kind == schema.Float {
		t = schema.TFloat
		x, y = toFloat(x), toFloat(y)
	}
	return &Arith{Op: n.Op, X: x, Y: y, T: t, Sp: n.Sp}
}

func toFloat(n Node) Node {
	if n.Type().Kind == schema.Int {
		if k, ok := n.(*Const); ok {
			return &Const{T: schema.TFloat, F: float64(k.I), Sp: k.Sp}
		}
		return &ToFloat{X: n, Sp: n.Span()}
	}
	return n
}

// unify converts the operands of a comparison to one kind. equality allows
// bools, users and languages; ordering needs numbers, datetimes or strings.
func (c *checker) unify(n ast.Expr, x, y Node, equality bool) (Node, Node, schema.Kind, bool) {
	tx, ty := x.Type(), y.Type()
	kx, ky := tx.Kind, ty.Kind
	if f := fieldOf(x); f != nil && f.BoolAlso && ky == schema.Bool {
		x, kx = &IsSet{X: x, Sp: x.Span()}, schema.Bool
	}
	if f := fieldOf(y); f != nil && f.BoolAlso && kx == schema.Bool {
		y, ky = &IsSet{X: y, Sp: y.Span()}, schema.Bool
	}
	op := "comparison"
	if b, ok := n.(*ast.Binary); ok {
		op = "`" + b.Op.String() + "`"
	}
	switch {
	case tx.IsNumeric() && ty.IsNumeric():
		if kx == schema.Float || ky == schema.Float {
			return toFloat(x), toFloat(y), schema.Float, true
		}
		return x, y, schema.Int, true
	case isText(kx) && isText(ky):
		return x, y, schema.String, true
	case kx == schema.Datetime && ky == schema.Datetime:
		return x, y, schema.Datetime, true
	case equality && kx == schema.Bool && ky == schema.Bool:
		return x, y, schema.Bool, true
	case equality && isUserish(kx) && isUserish(ky) && (kx == schema.User || ky == schema.User):
		return x, y, schema.Int, true
	}
	d := c.errorf(RuleType, n.Span(), "cannot compare %s with %s", tx, ty)
	switch {
	case !equality && (kx == schema.Bool || kx == schema.User || kx == schema.Language || ky == schema.Bool || ky == schema.User || ky == schema.Language):
		d.Message = fmt.Sprintf("%s does not order %s and %s", op, tx, ty)
		d = d.WithHint("only numbers, datetimes and strings are ordered; use = or !=")
	case kx == schema.User || ky == schema.User:
		d = d.WithHint("a user is compared with a user id or a mention such as @user:\"alice\"")
	case kx == schema.Language || ky == schema.Language:
		d = d.WithHint("a language is compared with a code or a mention such as @language:\"de\"")
	case kx == schema.Datetime && ky == schema.String, kx == schema.String && ky == schema.Datetime:
		d = d.WithHint("datetime literals take single quotes: '2024-01-01 00:00:00'")
		for _, side := range []Node{x, y} {
			if k, ok := side.(*Const); ok && k.T.Kind == schema.String {
				d = d.WithFix(k.Sp, "'"+k.S+"'")
			}
		}
	case kx == schema.Record || ky == schema.Record:
		d = d.WithHint("an object is not a value: compare one of its members, for example `id of file = 7`")
	case kx == schema.Collection || ky == schema.Collection:
		d = d.WithHint("a collection is not a value: compare its count, for example `count of translations > 0`")
	}
	c.report(d)
	return nil, nil, 0, false
}

func isText(k schema.Kind) bool    { return k == schema.String || k == schema.Language }
func isUserish(k schema.Kind) bool { return k == schema.User || k == schema.Int }

// findFold returns the element of xs equal to s under Unicode case
// folding.
func findFold(xs []string, s string) (string, bool) {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return x, true
		}
	}
	return "", false
}

// enumCheck warns when an enumerated field is compared with an unknown value.
func (c *checker) enumCheck(field, value Node) {
	f := fieldOf(field)
	k, ok := value.(*Const)
	if f == nil || len(f.Enum) == 0 || !ok || k.T.Kind != schema.String {
		return
	}
	for _, v := range f.Enum {
		if v == k.S {
			return
		}
	}
	d := diag.Warnf(RuleEnum, k.Sp, "%q is not a known value of `%s`", k.S, f.Name).
		WithHint("known values: %s", strings.Join(f.Enum, ", "))
	if !c.suggest() {
		c.report(d)
		return
	}
	if best := closest(k.S, f.Enum, 1); len(best) > 0 {
		d.Message += fmt.Sprintf("; did you mean %q?", best[0])
		d = d.WithFix(k.Sp, ast.Quote(best[0]))
	}
	c.report(d)
}

func (c *checker) between(n *ast.Between) Node {
	x, lo, hi := c.check(n.X), c.operand(n.Lo, n.X), c.operand(n.Hi, n.X)
	if x == nil || lo == nil || hi == nil {
		return nil
	}
	x1, lo1, k1, ok1 := c.unify(n, x, lo, false)
	if !ok1 {
		return nil
	}
	x2, hi2, k2, ok2 := c.unify(n, x, hi, false)
	if !ok2 {
		return nil
	}
	if k1 != k2 { // int vs float bounds: use float throughout
		x1, lo1, hi2, k1 = toFloat(x), toFloat(lo), toFloat(hi), schema.Float
	}
	_ = x2
	return &Between{X: x1, Lo: lo1, Hi: hi2, Operand: k1, Sp: n.Sp}
}

func (c *checker) member(n *ast.Member) Node {
	x := c.check(n.X)
	if x == nil {
		return nil
	}
	t := x.Type()
	if schema.NormalKey(n.Name.Name) == "count" {
		if t.Kind != schema.Collection {
			c.report(c.errorf(RuleNotCollection, n.X.Span(), "`count of` needs a collection; %s is %s", c.text(n.X.Span()), t).
				WithHint("collections are translations, comments, votes, ...; to test a string use contains or ="))
			return nil
		}
		return &Count{X: x, Sp: n.Sp}
	}
	switch t.Kind {
	case schema.Record, schema.User:
		f, ok := t.Obj.Field(n.Name.Name)
		if !ok {
			c.report(c.unknown(n.Name, []*schema.Object{t.Obj}))
			return nil
		}
		c.names[n.Name] = f
		if f.Edition == schema.Enterprise && c.cfg.Edition < schema.Enterprise {
			c.report(c.errorf(RuleEdition, n.Name.Sp, "`%s` is available in the enterprise edition only", f.Name))
			return nil
		}
		return &Member{F: f, X: x, Sp: n.Sp}
	case schema.Collection:
		c.report(c.errorf(RuleNotObject, n.Sp, "%s is a collection; `%s of` reads a member of one object", c.text(n.X.Span()), n.Name.Name).
			WithHint("count it (`count of %s`) or filter it (`%s where (...)`, `%s with (...)`)", c.text(n.X.Span()), c.text(n.X.Span()), c.text(n.X.Span())))
	default:
		c.report(c.errorf(RuleNotObject, n.X.Span(), "`%s of` needs an object; %s is %s", n.Name.Name, c.text(n.X.Span()), t))
	}
	return nil
}

func (c *checker) filter(n *ast.Filter) Node {
	x := c.check(n.X)
	if x == nil {
		return nil // the predicate's scope is unknown: it is not checked
	}
	t := x.Type()
	var elem *schema.Object
	switch {
	case t.Kind == schema.Collection:
		elem = t.Obj
	case n.Kind == ast.With && (t.Kind == schema.Record || t.Kind == schema.User):
		elem = t.Obj
	default:
		what := "a collection"
		if n.Kind == ast.With {
			what = "a collection or an object"
		}
		c.report(c.errorf(RuleNotCollection, n.X.Span(), "`%s` needs %s; %s is %s", n.Kind, what, c.text(n.X.Span()), t))
		return nil
	}
	scope := len(c.scopes)
	c.scopes = append(c.scopes, elem)
	c.max = max(c.max, len(c.scopes))
	p := c.check(n.Pred)
	c.scopes = c.scopes[:scope]
	if p == nil {
		return nil
	}
	p = c.toBool(p, n.Pred, "the predicate of `"+n.Kind.String()+"`")
	if p == nil {
		return nil
	}
	return &Filter{Kind: n.Kind, X: x, Pred: p, Scope: scope, Elem: elem, Sp: n.Sp}
}

func (c *checker) ifExpr(n *ast.If) Node {
	cond, th, el := c.check(n.Cond), c.check(n.Then), c.check(n.Else)
	if cond != nil {
		cond = c.toBool(cond, n.Cond, "the condition of `if`")
	}
	if cond == nil || th == nil || el == nil {
		return nil
	}
	tt, te := th.Type(), el.Type()
	switch {
	case tt.IsNumeric() && te.IsNumeric():
		if tt.Kind != te.Kind {
			th, el, tt = toFloat(th), toFloat(el), schema.TFloat
		}
		return &If{Cond: cond, Then: th, Else: el, T: tt, Sp: n.Sp}
	case tt.Kind == te.Kind && tt.Kind != schema.Record && tt.Kind != schema.Collection:
		return &If{Cond: cond, Then: th, Else: el, T: tt, Sp: n.Sp}
	case isText(tt.Kind) && isText(te.Kind):
		return &If{Cond: cond, Then: th, Else: el, T: schema.TString, Sp: n.Sp}
	case (tt.Kind == schema.Bool || te.Kind == schema.Bool) && (fieldIsBoolAlso(th) || fieldIsBoolAlso(el)):
		th, el = c.toBool(th, n.Then, "the `then` branch"), c.toBool(el, n.Else, "the `else` branch")
		if th == nil || el == nil {
			return nil
		}
		return &If{Cond: cond, Then: th, Else: el, T: schema.TBool, Sp: n.Sp}
	}
	c.report(c.errorf(RuleType, n.Sp, "the branches of `if` differ: `then` is %s, `else` is %s", tt, te).
		WithHint("both branches must have one type (numbers mix freely)"))
	return nil
}

func fieldIsBoolAlso(n Node) bool {
	f := fieldOf(n)
	return f != nil && f.BoolAlso
}
