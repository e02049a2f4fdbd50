package parser

import (
	"slices"
	"strings"

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
// stream is cut at the error and closed. Each repair re-parses the stream
// a few times, so long streams get fewer: repairTokens / tokens, at least 1.
const (
	maxRepairs   = 16
	repairTokens = 4096
)

// ParseTolerant parses src like Parse and, when it does not parse, repairs
// the token stream until it does, so that an editor gets a tree of what
// has been typed so far (docs/editor.md lists what it recovers from).
// First, parentheses left open are closed at the end of the text and a
// hole is put wherever an operand is due but the next token cannot begin
// one. Then, at the token participle stops at, it tries these candidates
// and keeps the first after which the tokens parse, else the one participle
// gets furthest with:
//
//   - a missing operand (after an operator, a keyword, `(`, `not`, `if`,
//     at the start, or before `)`) is filled with a hole;
//   - an `if` that ends early gets its `then` and `else` with holes;
//   - a `between` at the end gets `and` and a hole;
//
// and when none gets past the error, drops the token. After 16 repairs
// (fewer on streams over 256 tokens: 4096 / tokens, at least one) the
// tokens from the error on are dropped. A text over one of the parser's
// limits, or with more than MaxErrors scan errors, gets its diagnostics and
// tokens (up to where the scan stopped) but no tree.
func (p *Parser) ParseTolerant(src string) *Partial {
	out := &Partial{}
	if len(src) > p.lim.MaxSource {
		_, out.Diags = p.Parse(src)
		return out
	}
	var scopes []Scope
	r := p.parse(src, &scopes)
	ltoks := publicLexTokens(r.toks, r.lists)
	out.Tokens = publicTokens(ltoks)
	if r.tree != nil {
		out.Tree, out.Scopes = r.tree, sortScopes(scopes)
		return out
	}
	out.Diags = r.diags
	if r.stopped {
		// A limit (or the error cap) stopped the scan: no tree, so that the
		// repairs never re-parse more than the limits allow.
		return out
	}
	toks := ltoks[:len(ltoks)-1] // without EOF
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
	work = fillHoles(work, len(src))
	res := attempt(src, work, false)
	for try := 0; res.failAt >= 0; try++ {
		if try >= min(maxRepairs, max(1, repairTokens/len(work))) {
			work = closeAt(work[:res.failAt], len(src))
			res = attempt(src, work, false)
			break
		}
		work, res = repair(src, work, res.failAt, len(src))
	}
	if res.failAt < 0 {
		out.Tree, out.Scopes = res.tree, sortScopes(res.scopes)
	}
	return out
}

func sortScopes(s []Scope) []Scope {
	slices.SortStableFunc(s, func(a, b Scope) int { return a.Body.Start - b.Body.Start })
	return s
}

// synth is a token the repairs insert: its empty text gives it an empty span.
func synth(t lexer.TokenType, off int) lexer.Token {
	return lexer.Token{Type: t, Pos: lexer.Position{Offset: off, Line: 1, Column: 1}}
}

// startsOperandTok reports whether t can begin an operand: a leaf, `(`,
// `not`, `if`, or the unary minus.
func startsOperandTok(t *lexer.Token) bool {
	switch t.Type {
	case tLeaf, tLParen, tNot, tIf:
		return true
	case tOp:
		return t.Value == "-"
	}
	return false
}

// fillHoles inserts a hole wherever an operand is due and the next token
// (or the end) cannot begin one: `a and`, `where ()`, `(or b)`, `not )`.
// Participle reports such errors at the start of the construct it gave up
// on, not where the operand is missing, so these are repaired up front.
func fillHoles(toks []lexer.Token, end int) []lexer.Token {
	out := make([]lexer.Token, 0, len(toks)+4)
	var prev *lexer.Token
	for i := range toks {
		t := &toks[i]
		if expectsOperand(prev) && !startsOperandTok(t) {
			out = append(out, synth(tLeaf, t.Pos.Offset))
		}
		out = append(out, *t)
		last := *t
		prev = &last
	}
	if expectsOperand(prev) {
		out = append(out, synth(tLeaf, end))
	}
	return out
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

// repair changes the tokens at index at, where participle stopped: of the
// candidate repairs it keeps the first after which the tokens parse, else
// the one after which participle stops furthest on; when none gets past
// the error the token is dropped.
func repair(src string, toks []lexer.Token, at, end int) ([]lexer.Token, result) {
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
	// The first candidate that parses wins; else the one participle gets
	// furthest with, counted in tokens of the original stream.
	best, bestScore := -1, at
	var bestRes result
	for k, c := range cands {
		r := attempt(src, c, false)
		if r.failAt < 0 {
			return c, r
		}
		if score := r.failAt - (len(c) - len(toks)); score > bestScore {
			best, bestScore, bestRes = k, score, r
		}
	}
	if best >= 0 {
		return cands[best], bestRes
	}
	var next []lexer.Token
	if at >= len(toks) {
		next = closeAt(toks, end)
	} else {
		next = append(toks[:at:at], toks[at+1:]...)
	}
	return next, attempt(src, next, false)
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

// result is one parse of a token stream.
type result struct {
	tree   ast.Expr
	diags  diag.List
	scopes []Scope
	// failAt is the index of the token participle stopped at (len(toks)
	// for the end), or -1 when the tokens parse.
	failAt int
}

// attempt runs participle and, when it accepts toks (without EOF), the
// lowering. In strict mode the diagnostics are Parse's: participle's error,
// else the lowering's.
func attempt(src string, toks []lexer.Token, strict bool) result {
	g, err := grammar()
	if err != nil {
		return result{failAt: len(toks), diags: diag.List{diag.Errorf(diag.ClassSyntax, "internal", diag.Span{}, "internal error: the grammar does not build: %v", err)}}
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
		return result{failAt: len(toks), diags: diag.List{diag.Errorf(diag.ClassSyntax, "internal", diag.Span{}, "internal error: %v", err)}}
	}
	tree, err := g.ParseFromLexer(peek)
	if err != nil {
		r := result{failAt: len(toks)}
		if strict {
			r.diags = diag.List{syntaxError(src, all, err)}
		}
		if line := failLine(err); line >= 1 && line <= len(all) {
			r.failAt = line - 1
		}
		return r
	}
	var scopes []Scope
	l := lowerer{src: src, scopes: &scopes}
	e, _ := l.expr(tree)
	l.diags.Sort()
	return result{tree: e, diags: l.diags, scopes: scopes, failAt: -1}
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
