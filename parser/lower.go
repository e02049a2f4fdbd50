package parser

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
)

// lowerer turns participle's parse tree into ast nodes with exact spans.
// Each method returns the node and its outer span: the node's span plus
// any parentheses written around it, which the parent's span includes.
type lowerer struct {
	src   string
	diags diag.List
	// scopes, when non-nil, collects the body of every where/with filter
	// (tolerant parsing only).
	scopes *[]Scope
}

func tokSpan(t lexer.Token) diag.Span {
	return diag.Span{Start: t.Pos.Offset, End: t.Pos.Offset + len(t.Value)}
}

func (l *lowerer) errorf(rule string, sp diag.Span, format string, args ...any) {
	l.diags = append(l.diags, diag.Errorf(diag.ClassSyntax, rule, sp, format, args...))
}

func (l *lowerer) expr(g *gExpr) (ast.Expr, diag.Span) {
	if g.If != nil {
		return l.ifExpr(g.If)
	}
	c := climber{l: l, g: g.Chain}
	return c.binary(ast.PrecOr)
}

func (l *lowerer) ifExpr(g *gIf) (ast.Expr, diag.Span) {
	c, _ := l.expr(g.Cond)
	t, _ := l.expr(g.Then)
	e, eo := l.expr(g.Else)
	sp := diag.Span{Start: g.If.Pos.Offset, End: eo.End}
	return &ast.If{Cond: c, Then: t, Else: e, Sp: sp}, sp
}

// climber applies the precedence table to one chain: operand (op
// operand)*. Position is the next tail to read (-1: the first operand) and
// the next prefix of the current operand.
type climber struct {
	l      *lowerer
	g      *gChain
	tail   int // index of the next tail whose operator is unread
	prefix int // prefixes of the current operand already read
}

// operand returns the operand the climber stands on.
func (c *climber) operand() *gOperand {
	if c.tail == 0 {
		return c.g.X
	}
	return c.g.Rest[c.tail-1].Y
}

// peekOp returns the next binary operator, if any.
func (c *climber) peekOp() (lexer.Token, bool) {
	if c.tail < len(c.g.Rest) {
		return c.g.Rest[c.tail].Op, true
	}
	return lexer.Token{}, false
}

// nextOperand moves past the operator to the operand of the next tail.
func (c *climber) nextOperand() {
	c.tail++
	c.prefix = 0
}

// opKind reads an Op token through ast.Syntax. A stand-in for an operator
// CroQL does not have (`==`, `&&`, ...; its error is already reported) is
// OpInvalid at the comparison level.
func opKind(t lexer.Token) (op ast.Op, between bool) {
	s := ast.Infix(t.Value)
	if s == nil {
		return ast.OpInvalid, false
	}
	return s.Op, s.Role == ast.RoleBetween
}

func precOf(t lexer.Token) int {
	if s := ast.Infix(t.Value); s != nil {
		return s.Prec
	}
	return ast.PrecCompare
}

// binary parses operators binding at least as tightly as min.
func (c *climber) binary(min int) (ast.Expr, diag.Span) {
	x, xo := c.unary(min)
	compared := false
	for {
		t, ok := c.peekOp()
		if !ok {
			return x, xo
		}
		prec := precOf(t)
		if prec < min {
			return x, xo
		}
		op, between := opKind(t)
		if prec == ast.PrecCompare {
			if compared {
				c.l.errorf("chained-comparison", tokSpan(t),
					"comparisons do not chain: join two comparisons with `and` (`a < b and b < c`), or add parentheses")
			}
			compared = true
		}
		c.nextOperand()
		switch {
		case between:
			lo, _ := c.binary(ast.PrecAdd)
			and, ok := c.peekOp()
			if !ok || !strings.EqualFold(and.Value, "and") {
				rule, sp := "unexpected-eof", diag.Span{Start: len(c.l.src), End: len(c.l.src)}
				if ok {
					rule, sp = "unexpected-token", tokSpan(and)
				}
				c.l.errorf(rule, sp, "`between` takes `and` between its bounds: write `x between A and B`")
				return x, xo
			}
			c.nextOperand()
			hi, ho := c.binary(ast.PrecAdd)
			sp := diag.Span{Start: xo.Start, End: ho.End}
			x, xo = &ast.Between{X: x, Lo: lo, Hi: hi, Sp: sp}, sp
		case prec == ast.PrecCompare:
			y, yo := c.binary(ast.PrecAdd)
			x, xo = binary(op, x, xo, t, y, yo)
		default:
			y, yo := c.binary(prec + 1)
			x, xo = binary(op, x, xo, t, y, yo)
		}
	}
}

// unary parses the prefixes and the of-chain of the current operand, in
// a context that binds at least as tightly as min.
func (c *climber) unary(min int) (ast.Expr, diag.Span) {
	g := c.operand()
	if c.prefix < len(g.Prefix) {
		t := g.Prefix[c.prefix].Tok
		c.prefix++
		if t.Value == "-" {
			x, xo := c.unary(ast.PrecNeg)
			sp := diag.Span{Start: t.Pos.Offset, End: xo.End}
			return &ast.Unary{Op: ast.OpNeg, X: x, Sp: sp}, sp
		}
		if min > ast.PrecNot {
			c.l.errorf("unexpected-token", tokSpan(t),
				"`not` cannot stand inside a comparison, an arithmetic operand or after `-`: put it in parentheses, as in `a = (not b)`")
		}
		var x ast.Expr
		var xo diag.Span
		if c.prefix < len(g.Prefix) && g.Prefix[c.prefix].Tok.Value != "-" {
			x, xo = c.unary(ast.PrecNot) // not not x: level 5 repeats
		} else {
			x, xo = c.binary(ast.PrecCompare)
		}
		sp := diag.Span{Start: t.Pos.Offset, End: xo.End}
		return &ast.Unary{Op: ast.OpNot, X: x, Sp: sp}, sp
	}
	return c.l.links(g)
}

func binary(op ast.Op, x ast.Expr, xo diag.Span, opTok lexer.Token, y ast.Expr, yo diag.Span) (ast.Expr, diag.Span) {
	sp := diag.Span{Start: xo.Start, End: yo.End}
	return &ast.Binary{Op: op, X: x, Y: y, OpSpan: tokSpan(opTok), Sp: sp}, sp
}

// links lowers an operand's primary and links: the filters bind tighter
// than `of`, and `a of b of c` is a of (b of c). Every segment before an
// `of` must be a bare field name.
func (l *lowerer) links(g *gOperand) (ast.Expr, diag.Span) {
	type segment struct {
		x    ast.Expr
		sp   diag.Span
		name bool // a bare identifier, usable as a member name
	}
	x, xo := l.primary(g.prim())
	cur := segment{x, xo, g.Leaf != nil && isIdentTok(g.Leaf)}
	if len(g.Links) == 0 {
		return cur.x, cur.sp
	}
	var segs []segment
	for _, k := range g.Links {
		p, po := l.primary(k.prim())
		kw := strings.ToLower(k.Kw.Value)
		if kw == "of" {
			segs = append(segs, cur)
			cur = segment{p, po, k.Leaf != nil && isIdentTok(k.Leaf)}
			continue
		}
		kind := ast.Where
		if kw == "with" {
			kind = ast.With
		}
		sp := diag.Span{Start: cur.sp.Start, End: po.End}
		f := &ast.Filter{Kind: kind, X: cur.x, Pred: p, Sp: sp}
		if l.scopes != nil {
			body := diag.Span{Start: k.Kw.Pos.Offset + len(k.Kw.Value), End: po.End}
			if k.Open != nil {
				body = diag.Span{Start: k.Open.Pos.Offset + 1, End: k.Close.Pos.Offset}
			}
			*l.scopes = append(*l.scopes, Scope{Filter: f, Body: body})
		}
		cur = segment{f, sp, false}
	}
	x, xo = cur.x, cur.sp
	for i := len(segs) - 1; i >= 0; i-- {
		id, _ := segs[i].x.(*ast.Ident)
		if !segs[i].name || id == nil {
			l.errorf("member-name", segs[i].sp, "the left side of `of` must be a field name, as in `count of translations` or `id of file`")
			id = &ast.Ident{Name: "?", Sp: segs[i].sp}
		}
		sp := diag.Span{Start: segs[i].sp.Start, End: xo.End}
		x, xo = &ast.Member{Name: id, X: x, Sp: sp}, sp
	}
	return x, xo
}

func (l *lowerer) primary(g gPrim) (ast.Expr, diag.Span) {
	switch {
	case g.Leaf != nil:
		return l.leaf(*g.Leaf)
	case g.Open != nil:
		x, _ := l.expr(g.Sub)
		return x, diag.Span{Start: g.Open.Pos.Offset, End: g.Close.Pos.Offset + len(g.Close.Value)}
	case g.BareIf != nil:
		x, xo := l.ifExpr(g.BareIf)
		l.errorf("if-operand", xo,
			"an `if` used as an operand needs parentheses: write `(if … then … else …)`")
		return x, xo
	}
	// Unreachable for a tree participle accepted; keep the lowering total.
	return &ast.Ident{Name: "?"}, diag.Span{}
}

func (l *lowerer) leaf(t lexer.Token) (ast.Expr, diag.Span) {
	sp := tokSpan(t)
	if t.Value == "" { // a hole the tolerant parser inserted
		return &ast.Ident{Sp: sp}, sp
	}
	switch leafKind(t.Value) {
	case leafInt:
		v, _ := strconv.ParseInt(t.Value, 10, 64) // range checked by the scanner (a stand-in is a hole)
		return &ast.Int{Value: v, Sp: sp}, sp
	case leafFloat:
		v, _ := strconv.ParseFloat(t.Value, 64) // range checked by the scanner (a stand-in is a hole)
		return &ast.Float{Value: v, Sp: sp}, sp
	case leafString:
		v, _, _ := decodeString(l.src, sp.Start) // checked by the scanner
		return &ast.String{Value: v, Sp: sp}, sp
	case leafDatetime:
		return &ast.Datetime{Text: t.Value[1 : len(t.Value)-1], Sp: sp}, sp
	case leafMention:
		colon := strings.IndexByte(t.Value, ':')
		v, _, _ := decodeString(l.src, sp.Start+colon+1)
		return &ast.Mention{Kind: strings.ToLower(t.Value[1:colon]), Value: v, Sp: sp}, sp
	}
	return &ast.Ident{Name: identName(t.Value), Sp: sp}, sp
}

// nullTest reports the name token t when its last words are `is null` or
// `is empty`, which CroQL does not have: to the grammar it is a name.
func nullTest(t *lexer.Token) (diag.Diagnostic, bool) {
	v := t.Value
	if !isIdentTok(t) || len(v) < len("is null") ||
		v[len(v)-1]|0x20 != 'l' && v[len(v)-1]|0x20 != 'y' && v[len(v)-1]|0x20 != 't' && strings.IndexByte(v, '.') < 0 {
		return diag.Diagnostic{}, false
	}
	is, last := lastTwoWords(v)
	if is < 0 {
		return diag.Diagnostic{}, false
	}
	w := v[last:wordEnd(v, last)]
	if !isNullWord(w) || !strings.EqualFold(v[is:wordEnd(v, is)], "is") {
		return diag.Diagnostic{}, false
	}
	off := t.Pos.Offset
	return nullDiag(strings.TrimSpace(v[:is]), strings.ToLower(w), false, diag.Span{Start: off + is, End: off + len(v)}), true
}

// lastTwoWords returns the start of the last two words of a name token, as
// the scanner joined them (words apart by white space, up to a dotted
// path), or -1, -1 for a name of one word.
func lastTwoWords(v string) (int, int) {
	prev, cur := -1, -1
	i := 0
	for i < len(v) && isWordStart(v[i]) {
		prev, cur = cur, i
		i = wordEnd(v, i)
		if i < len(v) && v[i] == '.' {
			break
		}
		for i < len(v) {
			r, size := utf8.DecodeRuneInString(v[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += size
		}
	}
	if prev < 0 {
		return -1, -1
	}
	return prev, cur
}

func wordEnd(v string, i int) int {
	for i < len(v) && isWordByte(v[i]) {
		i++
	}
	return i
}

// nullDiag is the null-test diagnostic for `field is [not] null|empty`.
func nullDiag(field, what string, negated bool, sp diag.Span) diag.Diagnostic {
	f := field
	if f == "" {
		f = "X"
	}
	var msg string
	switch {
	case what == "empty" && !negated:
		msg = fmt.Sprintf("CroQL has no `is empty`: write `%s = \"\"` for a string or `count of %s = 0` for a collection", f, f)
	case what == "empty":
		msg = fmt.Sprintf("CroQL has no `is not empty`: write `%s != \"\"` for a string or `count of %s > 0` for a collection", f, f)
	case what == "absent" && !negated:
		msg = fmt.Sprintf("CroQL has no `is absent`: an ordering with an absent value is false and an absent bool is false; "+
			"test the value instead, by its type: `not (%s >= 0 or %s < 0)` for a number, `not (%s >= \"\")` for a string, "+
			"`count of %s = 0` for a collection, `not %s` for a bool that is false or absent", f, f, f, f, f)
	case what == "absent":
		msg = fmt.Sprintf("CroQL has no `is not absent`: an ordering with an absent value is false and an absent bool is false; "+
			"test the value instead, by its type: `(%s >= 0 or %s < 0)` for a number, `%s >= \"\"` for a string, "+
			"`count of %s > 0` for a collection, `%s` for a bool that is true", f, f, f, f, f)
	case !negated:
		msg = fmt.Sprintf("CroQL has no null test (`is null`): an ordering with an absent value is false and an absent bool is false; "+
			"test the value instead, by its type: `not (%s >= 0 or %s < 0)` for a number, `not (%s >= \"\")` for a string, "+
			"`count of %s = 0` for a collection, `not %s` for a bool that is false or absent", f, f, f, f, f)
	default:
		msg = fmt.Sprintf("CroQL has no null test (`is not null`): an ordering with an absent value is false and an absent bool is false; "+
			"test the value instead, by its type: `(%s >= 0 or %s < 0)` for a number, `%s >= \"\"` for a string, "+
			"`count of %s > 0` for a collection, `%s` for a bool that is true", f, f, f, f, f)
	}
	return diag.Errorf(diag.ClassSyntax, "null-test", sp, "%s", msg)
}

// isNullWord reports the last word of a null test: null, empty or absent
// (absent is what docs/language.md calls a value that is not there).
func isNullWord(w string) bool {
	return strings.EqualFold(w, "null") || strings.EqualFold(w, "empty") || strings.EqualFold(w, "absent")
}

// identName joins the words of an identifier token with single spaces.
func identName(raw string) string {
	if strings.IndexFunc(raw, func(r rune) bool { return r != '_' && !isWordRune(r) }) < 0 {
		return raw // one word: no allocation
	}
	return strings.Join(strings.Fields(raw), " ")
}

func isWordRune(r rune) bool { return r < 0x80 && isWordByte(byte(r)) }
