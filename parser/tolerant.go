package parser

import (
	"errors"
	"slices"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
)

// TokenKind classifies a token of the tolerant parse.
type TokenKind uint8

// The token kinds.
const (
	TokIdent    TokenKind = iota // a field name, one or more words
	TokInt                       // 42
	TokFloat                     // 0.5
	TokString                    // "text"
	TokDatetime                  // '2024-01-01'
	TokMention                   // @user:"alice"
	TokKeyword                   // and or xor not of where with between contains if then else
	TokOperator                  // = != ≠ < <= > >= ≤ ≥ + - * /
	TokLParen                    // (
	TokRParen                    // )
)

// Token is one token of the source, as the scanner made it.
type Token struct {
	Kind TokenKind
	Span diag.Span
	// Text is the source text of the token.
	Text string
}

// Scope is the body of one `where` or `with` filter: the predicate, read
// in the scope of the filtered collection's element (or object). Body is the
// inside of the parentheses when the predicate is parenthesised (even when
// the closing one is missing: it then ends at the end of the text), else
// everything after the keyword up to the end of the predicate.
type Scope struct {
	Filter *ast.Filter
	Body   diag.Span
}

// Partial is the result of a tolerant parse: what an editor needs from a
// text that is being typed and may not parse.
type Partial struct {
	// Tree is the best tree the parser could recover, nil when none. For a
	// text that parses it is the tree Parse returns. Holes (operands the
	// parser inserted) are *ast.Ident with an empty Name and an empty span.
	Tree ast.Expr
	// Tokens is every token the scanner made, in source order. Bytes the
	// scanner rejected (a bad character, an unterminated string, `==`, ...)
	// make no token.
	Tokens []Token
	// Scopes is the body of every filter of Tree, outer filters before the
	// filters nested in them.
	Scopes []Scope
	// Diags is what Parse reports for the text.
	Diags diag.List
	// Repaired is set when Tree comes from a repaired token stream.
	Repaired bool
}

// maxRepairs bounds the repairs of one tolerant parse; past it the token
// stream is cut at the error and closed.
const maxRepairs = 16

// ParseTolerant parses src like Parse and, when it does not parse, repairs
// the token stream until it does, so that an editor gets a tree of what
// has been typed so far. The repairs, tried in this order at the token
// participle stops at:
//
//   - a missing operand (after an operator, a keyword, `(`, `not`, `if`,
//     at the start, or before `)`) is filled with a hole;
//   - an `if` that ends early gets its `then` and `else` with holes;
//   - any other unexpected token is dropped;
//   - parentheses left open are closed at the end of the text.
//
// After maxRepairs repairs the tokens from the error on are dropped. The
// source limit still applies (a longer text gives no tree); the depth and
// node limits do not stop the tolerant parse, since its token stream is
// bounded by the source limit and the repairs only add holes and closers.
func (p *Parser) ParseTolerant(src string) *Partial {
	out := &Partial{}
	if len(src) > p.lim.MaxSource {
		_, out.Diags = p.Parse(src)
		return out
	}
	sr := scan(src, p.lim)
	out.Tokens = publicTokens(sr.toks)
	toks := sr.toks[:len(sr.toks)-1] // without EOF
	if !sr.diags.HasErrors() {
		tree, diags, scopes, ok := parseTokens(src, toks, true)
		if ok && !diags.HasErrors() {
			out.Tree, out.Scopes = tree, sortScopes(scopes)
			return out
		}
		out.Diags = diags
	} else {
		out.Diags = sr.diags
	}
	if sr.stopped { // a limit: scan again without them to recover a tree
		free := Limits{MaxSource: p.lim.MaxSource, MaxDepth: int(^uint(0) >> 1), MaxNodes: int(^uint(0) >> 1)}
		sr = scan(src, free)
		out.Tokens = publicTokens(sr.toks)
		toks = sr.toks[:len(sr.toks)-1]
	}
	out.Repaired = true
	work := append(make([]lexer.Token, 0, len(toks)+8), toks...)
	// Close what is open: the scanner emits no token for an unmatched `)`.
	depth := 0
	for _, t := range work {
		switch t.Type {
		case tLParen:
			depth++
		case tRParen:
			depth--
		}
	}
	for ; depth > 0; depth-- {
		work = append(work, synth(tRParen, len(src)))
	}
	for try := 0; ; try++ {
		tree, _, scopes, ok := parseTokens(src, work, false)
		if ok {
			out.Tree, out.Scopes = tree, sortScopes(scopes)
			return out
		}
		at := failIndex(src, work)
		if at < 0 {
			return out
		}
		if try >= maxRepairs {
			work = closeAt(work[:at], len(src))
			if tree, _, scopes, ok := parseTokens(src, work, false); ok {
				out.Tree, out.Scopes = tree, sortScopes(scopes)
			}
			return out
		}
		work = repair(src, work, at, len(src))
	}
}

func sortScopes(s []Scope) []Scope {
	slices.SortStableFunc(s, func(a, b Scope) int { return a.Body.Start - b.Body.Start })
	return s
}

// synth is a token the repairs insert: its empty text gives it an empty span.
func synth(t lexer.TokenType, off int) lexer.Token {
	return lexer.Token{Type: t, Pos: lexer.Position{Offset: off, Line: 1, Column: 1}}
}

// expectsOperand reports whether an operand must follow token t (nil: the
// start of the text).
func expectsOperand(t *lexer.Token) bool {
	if t == nil {
		return true
	}
	switch t.Type {
	case tOp, tNot, tLink, tIf, tThen, tElse, tLParen:
		return true
	}
	return false
}

// repair changes the tokens at index at, where participle stopped: it
// tries the candidate repairs in order and keeps the first after which the
// tokens parse or participle stops further on; the last, dropping the
// token, always applies.
func repair(src string, toks []lexer.Token, at, end int) []lexer.Token {
	off := end
	if at < len(toks) {
		off = toks[at].Pos.Offset
	}
	var cands [][]lexer.Token
	if at == 0 || expectsOperand(&toks[at-1]) {
		cands = append(cands, insert(toks, at, synth(tLeaf, off)))
	}
	if at < len(toks) && expectsOperand(&toks[at]) {
		next := end
		if at+1 < len(toks) {
			next = toks[at+1].Pos.Offset
		}
		cands = append(cands, insert(toks, at+1, synth(tLeaf, next)))
	}
	switch openIf(toks[:at]) {
	case tThen:
		cands = append(cands, insert(toks, at, synth(tThen, off), synth(tLeaf, off), synth(tElse, off), synth(tLeaf, off)))
	case tElse:
		cands = append(cands, insert(toks, at, synth(tElse, off), synth(tLeaf, off)))
	}
	if at >= len(toks) {
		// Give an open `between` its `and`.
		cands = append(cands, insert(toks, at, lexer.Token{Type: tOp, Value: "and", Pos: lexer.Position{Offset: end, Line: 1, Column: 1}}, synth(tLeaf, end)))
	}
	for _, c := range cands {
		if i := failIndex(src, c); i < 0 || i > at {
			return c
		}
	}
	if at >= len(toks) {
		return closeAt(toks, end)
	}
	return append(toks[:at:at], toks[at+1:]...)
}

// openIf returns tThen or tElse when the innermost `if` before the end of
// toks at the current parenthesis level still needs that keyword, else 0.
func openIf(toks []lexer.Token) lexer.TokenType {
	var stack []lexer.TokenType // per open if: the keyword it needs next
	levels := []int{0}
	for _, t := range toks {
		switch t.Type {
		case tLParen:
			levels = append(levels, len(stack))
		case tRParen:
			if len(levels) > 1 {
				stack = stack[:levels[len(levels)-1]]
				levels = levels[:len(levels)-1]
			}
		case tIf:
			stack = append(stack, tThen)
		case tThen:
			if n := len(stack); n > levels[len(levels)-1] && stack[n-1] == tThen {
				stack[n-1] = tElse
			}
		case tElse:
			if n := len(stack); n > levels[len(levels)-1] && stack[n-1] == tElse {
				stack = stack[:n-1]
			}
		}
	}
	if n := len(stack); n > levels[len(levels)-1] {
		return stack[n-1]
	}
	return 0
}

func insert(toks []lexer.Token, at int, ins ...lexer.Token) []lexer.Token {
	out := make([]lexer.Token, 0, len(toks)+len(ins))
	out = append(out, toks[:at]...)
	out = append(out, ins...)
	return append(out, toks[at:]...)
}

// closeAt ends a cut token stream: a hole if an operand is due, then a
// closer for every open parenthesis.
func closeAt(toks []lexer.Token, end int) []lexer.Token {
	var prev *lexer.Token
	if len(toks) > 0 {
		prev = &toks[len(toks)-1]
	}
	if expectsOperand(prev) {
		toks = append(toks, synth(tLeaf, end))
	}
	depth := 0
	for _, t := range toks {
		switch t.Type {
		case tLParen:
			depth++
		case tRParen:
			depth--
		}
	}
	if openIf(toks) != 0 {
		toks = append(toks, synth(tThen, end), synth(tLeaf, end), synth(tElse, end), synth(tLeaf, end))
	}
	for ; depth > 0; depth-- {
		toks = append(toks, synth(tRParen, end))
	}
	return toks
}

// parseTokens runs participle and the lowering on toks (without EOF). In
// strict mode it returns the lowering's diagnostics too; ok is false when
// participle rejects the tokens.
func parseTokens(src string, toks []lexer.Token, strict bool) (ast.Expr, diag.List, []Scope, bool) {
	g, err := grammar()
	if err != nil {
		return nil, diag.List{diag.Errorf(diag.ClassSyntax, "internal", diag.Span{}, "internal error: the grammar does not build: %v", err)}, nil, false
	}
	all := make([]lexer.Token, len(toks)+1)
	copy(all, toks)
	all[len(toks)] = lexer.Token{Type: lexer.EOF, Pos: lexer.Position{Offset: len(src)}}
	for i := range all {
		// The token's index, to find where participle stops: holes share
		// their offset with the token after them.
		all[i].Pos.Line = i + 1
	}
	peek, err := lexer.Upgrade(&sliceLexer{toks: all})
	if err != nil {
		return nil, diag.List{diag.Errorf(diag.ClassSyntax, "internal", diag.Span{}, "internal error: %v", err)}, nil, false
	}
	tree, err := g.ParseFromLexer(peek)
	if err != nil {
		if strict {
			return nil, diag.List{syntaxError(src, all, err)}, nil, false
		}
		return nil, nil, nil, false
	}
	var scopes []Scope
	l := lowerer{src: src, scopes: &scopes}
	e, _ := l.expr(tree)
	l.diags.Sort()
	return e, l.diags, scopes, true
}

// failIndex parses toks and returns the index of the token participle
// stops at (len(toks) for the end), or -1 when it does not stop.
func failIndex(src string, toks []lexer.Token) int {
	g, err := grammar()
	if err != nil {
		return -1
	}
	all := make([]lexer.Token, len(toks)+1)
	copy(all, toks)
	all[len(toks)] = lexer.Token{Type: lexer.EOF, Pos: lexer.Position{Offset: len(src)}}
	for i := range all {
		all[i].Pos.Line = i + 1
	}
	peek, err := lexer.Upgrade(&sliceLexer{toks: all})
	if err != nil {
		return -1
	}
	_, err = g.ParseFromLexer(peek)
	if err == nil {
		return -1
	}
	line := -1
	var ut *participle.UnexpectedTokenError
	var perr participle.Error
	switch {
	case errors.As(err, &ut):
		line = ut.Unexpected.Pos.Line
	case errors.As(err, &perr):
		line = perr.Position().Line
	}
	if line < 1 || line > len(all) {
		return len(toks)
	}
	return line - 1
}

// publicTokens converts scanner tokens (EOF dropped) to Tokens.
func publicTokens(toks []lexer.Token) []Token {
	out := make([]Token, 0, len(toks))
	for _, t := range toks {
		if t.EOF() {
			continue
		}
		k := TokOperator
		switch t.Type {
		case tLeaf:
			switch leafKind(t.Value) {
			case leafIdent:
				k = TokIdent
			case leafInt:
				k = TokInt
			case leafFloat:
				k = TokFloat
			case leafString:
				k = TokString
			case leafDatetime:
				k = TokDatetime
			default:
				k = TokMention
			}
		case tNot, tLink, tIf, tThen, tElse:
			k = TokKeyword
		case tOp:
			if keyword(t.Value) != "" {
				k = TokKeyword
			}
		case tLParen:
			k = TokLParen
		case tRParen:
			k = TokRParen
		}
		out = append(out, Token{Kind: k, Span: tokSpan(t), Text: t.Value})
	}
	return out
}

// IsKeyword reports whether w (any case) is a reserved word of CroQL.
func IsKeyword(w string) bool { return keyword(strings.TrimSpace(w)) != "" }
