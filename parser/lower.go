package parser

import (
	"strconv"
	"strings"

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
	return l.or(g.Or)
}

func (l *lowerer) ifExpr(g *gIf) (ast.Expr, diag.Span) {
	c, _ := l.expr(g.Cond)
	t, _ := l.expr(g.Then)
	e, eo := l.expr(g.Else)
	sp := diag.Span{Start: g.If.Pos.Offset, End: eo.End}
	return &ast.If{Cond: c, Then: t, Else: e, Sp: sp}, sp
}

func binary(op ast.Op, x ast.Expr, xo diag.Span, opTok lexer.Token, y ast.Expr, yo diag.Span) (ast.Expr, diag.Span) {
	sp := diag.Span{Start: xo.Start, End: yo.End}
	return &ast.Binary{Op: op, X: x, Y: y, OpSpan: tokSpan(opTok), Sp: sp}, sp
}

func (l *lowerer) or(g *gOr) (ast.Expr, diag.Span) {
	x, xo := l.xor(g.X)
	for _, r := range g.Rest {
		y, yo := l.xor(r.Y)
		x, xo = binary(ast.OpOr, x, xo, r.Op, y, yo)
	}
	return x, xo
}

func (l *lowerer) xor(g *gXor) (ast.Expr, diag.Span) {
	x, xo := l.and(g.X)
	for _, r := range g.Rest {
		y, yo := l.and(r.Y)
		x, xo = binary(ast.OpXor, x, xo, r.Op, y, yo)
	}
	return x, xo
}

func (l *lowerer) and(g *gAnd) (ast.Expr, diag.Span) {
	x, xo := l.not(g.X)
	for _, r := range g.Rest {
		y, yo := l.not(r.Y)
		x, xo = binary(ast.OpAnd, x, xo, r.Op, y, yo)
	}
	return x, xo
}

func (l *lowerer) not(g *gNot) (ast.Expr, diag.Span) {
	x, xo := l.cmp(g.X)
	for i := len(g.Nots) - 1; i >= 0; i-- {
		sp := diag.Span{Start: g.Nots[i].Tok.Pos.Offset, End: xo.End}
		x, xo = &ast.Unary{Op: ast.OpNot, X: x, Sp: sp}, sp
	}
	return x, xo
}

var cmpOps = map[string]ast.Op{
	"=": ast.OpEq, "!=": ast.OpNe, "≠": ast.OpNe, "<": ast.OpLt, "<=": ast.OpLe, "≤": ast.OpLe,
	">": ast.OpGt, ">=": ast.OpGe, "≥": ast.OpGe,
}

func (l *lowerer) cmp(g *gCmp) (ast.Expr, diag.Span) {
	x, xo := l.add(g.X)
	for i, r := range g.Rest {
		if i == 1 {
			opSp := tokSpan(r.Op)
			if r.Y == nil {
				opSp = tokSpan(r.Between)
			}
			l.errorf("chained-comparison", opSp,
				"comparisons do not chain: join two comparisons with `and` (`a < b and b < c`), or add parentheses")
		}
		if r.Y == nil { // between
			lo, _ := l.add(r.Lo)
			hi, ho := l.add(r.Hi)
			sp := diag.Span{Start: xo.Start, End: ho.End}
			x, xo = &ast.Between{X: x, Lo: lo, Hi: hi, Sp: sp}, sp
			continue
		}
		op, ok := cmpOps[r.Op.Value]
		if !ok {
			op = ast.OpContains // the only keyword comparison
		}
		y, yo := l.add(r.Y)
		x, xo = binary(op, x, xo, r.Op, y, yo)
	}
	return x, xo
}

func (l *lowerer) add(g *gAdd) (ast.Expr, diag.Span) {
	x, xo := l.mul(g.X)
	for _, r := range g.Rest {
		op := ast.OpAdd
		if r.Op.Value == "-" {
			op = ast.OpSub
		}
		y, yo := l.mul(r.Y)
		x, xo = binary(op, x, xo, r.Op, y, yo)
	}
	return x, xo
}

func (l *lowerer) mul(g *gMul) (ast.Expr, diag.Span) {
	x, xo := l.neg(g.X)
	for _, r := range g.Rest {
		op := ast.OpMul
		if r.Op.Value == "/" {
			op = ast.OpDiv
		}
		y, yo := l.neg(r.Y)
		x, xo = binary(op, x, xo, r.Op, y, yo)
	}
	return x, xo
}

func (l *lowerer) neg(g *gNeg) (ast.Expr, diag.Span) {
	x, xo := l.of(g.X)
	for i := len(g.Negs) - 1; i >= 0; i-- {
		sp := diag.Span{Start: g.Negs[i].Tok.Pos.Offset, End: xo.End}
		x, xo = &ast.Unary{Op: ast.OpNeg, X: x, Sp: sp}, sp
	}
	return x, xo
}

// of lowers `a of b of c` to a of (b of c).
func (l *lowerer) of(g *gOf) (ast.Expr, diag.Span) {
	last := len(g.Links) - 1
	x, xo := l.filter(g.Links[last])
	for i := last - 1; i >= 0; i-- {
		link := g.Links[i]
		name, no := l.filter(link)
		id, ok := name.(*ast.Ident)
		if !ok || link.X.Ident == nil {
			l.errorf("member-name", no, "the left side of `of` must be a field name, as in `count of translations` or `id of file`")
			id = &ast.Ident{Name: "?", Sp: no}
		}
		sp := diag.Span{Start: no.Start, End: xo.End}
		x, xo = &ast.Member{Name: id, X: x, Sp: sp}, sp
	}
	return x, xo
}

func (l *lowerer) filter(g *gFilter) (ast.Expr, diag.Span) {
	x, xo := l.primary(g.X)
	for _, r := range g.Rest {
		kind := ast.Where
		if strings.EqualFold(r.Kind.Value, "with") {
			kind = ast.With
		}
		p, po := l.primary(r.Pred)
		sp := diag.Span{Start: xo.Start, End: po.End}
		x, xo = &ast.Filter{Kind: kind, X: x, Pred: p, Sp: sp}, sp
	}
	return x, xo
}

func (l *lowerer) primary(g *gPrimary) (ast.Expr, diag.Span) {
	switch {
	case g.Ident != nil:
		sp := tokSpan(*g.Ident)
		return &ast.Ident{Name: identName(g.Ident.Value), Sp: sp}, sp
	case g.Int != nil:
		sp := tokSpan(*g.Int)
		v, _ := strconv.ParseInt(g.Int.Value, 10, 64) // range checked by the pre-scan
		return &ast.Int{Value: v, Sp: sp}, sp
	case g.Float != nil:
		sp := tokSpan(*g.Float)
		v, _ := strconv.ParseFloat(g.Float.Value, 64) // range checked by the pre-scan
		return &ast.Float{Value: v, Sp: sp}, sp
	case g.String != nil:
		sp := tokSpan(*g.String)
		v, _, _ := decodeString(l.src, sp.Start) // checked by the pre-scan
		return &ast.String{Value: v, Sp: sp}, sp
	case g.Datetime != nil:
		sp := tokSpan(*g.Datetime)
		return &ast.Datetime{Text: g.Datetime.Value[1 : len(g.Datetime.Value)-1], Sp: sp}, sp
	case g.Mention != nil:
		sp := tokSpan(*g.Mention)
		raw := g.Mention.Value
		colon := strings.IndexByte(raw, ':')
		v, _, _ := decodeString(l.src, sp.Start+colon+1)
		return &ast.Mention{Kind: strings.ToLower(raw[1:colon]), Value: v, Sp: sp}, sp
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

// identName joins the words of an identifier token with single spaces.
func identName(raw string) string {
	if strings.IndexFunc(raw, func(r rune) bool { return r != '_' && !isWordRune(r) }) < 0 {
		return raw // one word: no allocation
	}
	return strings.Join(strings.Fields(raw), " ")
}

func isWordRune(r rune) bool { return r < 0x80 && isWordByte(byte(r)) }
