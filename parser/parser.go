// Package parser turns CroQL text into an [ast.Expr], or into syntax
// diagnostics.
//
// Parsing runs in three steps. A hand-written scanner (lexer.go) tokenises the
// text and reports what the characters alone show: bad escapes, unterminated
// strings, integer overflow, mention kinds, characters CroQL does not have,
// the operator spellings of other languages (`==`, `<>`, `&&`, `||`, `!`) and
// dotted paths, and unbalanced parentheses. It also enforces the [Limits] on
// nesting depth and node count as bounds on tokens (open parentheses and
// `if`s; tokens that make nodes), so that participle never recurses deeper or
// reads more than the limits allow. The tokens go to a participle grammar
// (grammar.go) that reads operands, their prefixes and of/where/with links,
// and chains of binary operators; the lowering (lower.go) applies the
// precedence table to those chains with a precedence climber and builds ast
// nodes with exact byte spans. The keywords and operators, their token
// types, precedence and printed spelling are one table, [ast.Syntax].
//
// The spellings CroQL does not have that need the grammar are found by the
// parse (parse): participle stops at the `(` of `x in (1, 2)` and at the
// `not` of `x is not null` (nothing may follow a name with either), where
// the error path names the spelling, repairs the tokens and parses again
// for the next; a name ending in `is null` or `is empty` is reported from
// its token. When there is such a spelling or a lexical error, those are
// what Parse reports, all of them, sorted by position; otherwise
// participle's first syntax error, or the lowering's (chained comparisons,
// an `if` or `not` where an operand belongs, a member name that is not a
// field name).
//
// Every diagnostic has the code [diag.ClassSyntax] and a stable rule name
// (for example "double-equals", "missing-paren", "limit-depth"); the list is in
// docs/language.md. A [Parser] is safe for concurrent use.
package parser

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
)

// Default limits.
const (
	DefaultMaxSource = 64 << 10 // bytes
	DefaultMaxDepth  = 128      // nested parentheses and `if`s
	DefaultMaxNodes  = 10000    // ast nodes
)

// Limits bound what one Parse call accepts. A zero (or negative) field
// means its default. Crossing a limit is a diagnostic (rules "limit-source",
// "limit-depth", "limit-nodes"), found before any recursive parsing starts.
type Limits struct {
	// MaxSource is the longest accepted source, in bytes.
	MaxSource int
	// MaxDepth is the deepest accepted nesting of parentheses and `if`
	// expressions.
	MaxDepth int
	// MaxNodes is the largest accepted number of ast nodes (ast.Count).
	MaxNodes int
}

func (l Limits) withDefaults() Limits {
	if l.MaxSource <= 0 {
		l.MaxSource = DefaultMaxSource
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	return l
}

// Parser parses CroQL with fixed limits. It is immutable and safe for
// concurrent use.
type Parser struct {
	lim Limits
}

// grammar is the participle parser, built once: it does not depend on the
// limits and is read-only after it is built.
var grammar = sync.OnceValues(func() (*participle.Parser[gExpr], error) {
	return participle.Build[gExpr](
		participle.Lexer(definition{}),
		participle.UseLookahead(1),
	)
})

// New returns a parser with the given limits (zero fields are defaults).
func New(lim Limits) *Parser {
	return &Parser{lim: lim.withDefaults()}
}

// Limits returns the limits in force, defaults filled in.
func (p *Parser) Limits() Limits { return p.lim }

var defaultParser = sync.OnceValue(func() *Parser { return New(Limits{}) })

// Parse parses src with the default limits.
func Parse(src string) (ast.Expr, diag.List) { return defaultParser().Parse(src) }

// Parse parses one CroQL expression. It returns the tree and no error
// diagnostics, or a nil tree and at least one error diagnostic, sorted by
// position, each with a span inside [0, len(src)].
func (p *Parser) Parse(src string) (ast.Expr, diag.List) {
	if len(src) > p.lim.MaxSource {
		return nil, diag.List{diag.Errorf(diag.ClassSyntax, "limit-source", diag.Span{Start: p.lim.MaxSource, End: len(src)},
			"the query is %d bytes long, more than the limit of %d; shorten it", len(src), p.lim.MaxSource).
			WithHint("raise the limit with --max-source BYTES (croql lint, sql, query, fmt, explain), or parser.Limits.MaxSource through croql.WithLimits")}
	}
	r := p.parse(src, nil)
	if len(r.diags) > 0 {
		return nil, r.diags
	}
	return r.tree, nil
}

// parsed is the result of parse.
type parsed struct {
	tree  ast.Expr
	diags diag.List
	// toks are the scanner's tokens (with EOF), lists the spans of the
	// in-lists: publicLexTokens makes the tokens a reader sees of them.
	toks  []lexer.Token
	lists []diag.Span
	// stopped: a limit or the error cap ended the scan.
	stopped bool
}

// The reparses after spellings are bounded: at most MaxErrors of them, and
// participle reads at most reparseFactor times the tokens of the text over
// all of them (at least reparseMin), so that a text full of spellings costs
// a few parses of its size; past that, the spellings further on are not
// reported.
const (
	reparseFactor = 4
	reparseMin    = 1 << 15
)

// parse scans src and parses the tokens. Its diagnostics are of two kinds,
// as the user sees them:
//
//   - spellings: the scanner's lexical errors, and the spellings CroQL does
//     not have that the grammar rejects: an `in (...)` list or an
//     `is not null` where participle stops (spellingAt), and a name ending
//     in `is null` or `is empty` (nullTest, on every name token). After
//     each spelling participle stops at, the tokens are repaired and parsed
//     again, so that the next is found too; another error ends the search.
//   - the grammar's other errors (participle's, the lowering's), reported
//     only when there is no spelling, since a spelling may cause them.
func (p *Parser) parse(src string, scopes *[]Scope) parsed {
	sr := scan(src, p.lim)
	if sr.stopped {
		// No parse past a limit; the null tests need none (up to the
		// token the scan stopped at).
		ds := sr.diags
		stop := ds[len(ds)-1].Span.Start
		for i := range sr.toks {
			if d, ok := nullTest(&sr.toks[i]); ok && sr.toks[i].Pos.Offset+len(sr.toks[i].Value) <= stop {
				ds = append(ds, d)
			}
		}
		return parsed{diags: spellingDiags(ds, nil, len(src)), toks: sr.toks, stopped: true}
	}
	if _, err := grammar(); err != nil {
		return parsed{diags: diag.List{diag.Errorf(diag.ClassSyntax, "internal", diag.Span{}, "internal error: the grammar does not build: %v", err)}, toks: sr.toks, stopped: true}
	}
	spelled := sr.diags
	toks := sr.toks
	var lists []diag.Span // in-lists: what is inside is not read
	var tree ast.Expr
	var grammarDiags diag.List // the lowering's errors
	var parseErr error         // participle's
	read := 0
	// With a lexical error the grammar's own errors are not reported, so
	// parse only when a spelling can be found: at a `(` or `not` after a
	// name (spellingAt). Text being typed with a parenthesis open is not
	// parsed twice.
	for len(spelled) == 0 || anySpellingPlace(toks) {
		g, failAt, err := parseTokens(toks)
		read += len(toks)
		if err == nil {
			l := lowerer{src: src, scopes: scopes}
			tree, _ = l.expr(g)
			grammarDiags = l.diags
			break
		}
		sp, ok := spellingAt(src, toks, failAt)
		if !ok {
			parseErr = err
			break
		}
		spelled = append(spelled, sp.d)
		if sp.list != (diag.Span{}) {
			lists = append(lists, sp.list)
		}
		toks = sp.repair(toks)
		if len(spelled) > MaxErrors || read+len(toks) > max(reparseFactor*len(sr.toks), reparseMin) {
			break
		}
	}
	for i := range sr.toks {
		if d, ok := nullTest(&sr.toks[i]); ok && !inside(d.Span, lists) {
			spelled = append(spelled, d)
		}
	}
	if len(spelled) == 0 {
		if parseErr != nil {
			// No spelling, so no repair: toks are sr.toks.
			return parsed{diags: diag.List{syntaxError(src, toks, parseErr)}, toks: sr.toks}
		}
		if len(grammarDiags) > 0 {
			grammarDiags.Sort()
			return parsed{diags: grammarDiags, toks: sr.toks}
		}
		return parsed{tree: tree, toks: sr.toks}
	}
	if scopes != nil {
		*scopes = (*scopes)[:0]
	}
	return parsed{diags: spellingDiags(spelled, lists, len(src)), toks: sr.toks, lists: lists}
}

// parseTokens runs participle on toks (ending with EOF) and returns the
// tree, or the index of the token it stopped at and its error.
func parseTokens(toks []lexer.Token) (*gExpr, int, error) {
	g, err := grammar()
	if err != nil {
		return nil, len(toks) - 1, fmt.Errorf("the grammar does not build: %w", err)
	}
	for i := range toks {
		// The token's index, to find where participle stops: stand-ins and
		// holes may share their offset with the token after them.
		toks[i].Pos.Line = i + 1
	}
	peek, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		return nil, len(toks) - 1, fmt.Errorf("internal error: %w", err)
	}
	tree, err := g.ParseFromLexer(peek)
	if err == nil {
		return tree, -1, nil
	}
	line := failLine(err)
	if line < 1 || line > len(toks) {
		line = len(toks)
	}
	return nil, line - 1, err
}

// failLine is the Pos.Line of the token where participle's err says it
// stopped (the parsers number their tokens from 1 in Pos.Line), or -1.
func failLine(err error) int {
	var ut *participle.UnexpectedTokenError
	var perr participle.Error
	switch {
	case errors.As(err, &ut):
		return ut.Unexpected.Pos.Line
	case errors.As(err, &perr):
		return perr.Position().Line
	}
	return -1
}

// spelling is a spelling CroQL does not have, found where participle
// stopped, and the repair that lets the parse go on.
type spelling struct {
	d diag.Diagnostic
	// from, to: the tokens the repair replaces with with (or removes).
	from, to int
	with     *lexer.Token
	// list, for an in-list, is the offsets from its `(` to its end.
	list diag.Span
}

func (sp spelling) repair(toks []lexer.Token) []lexer.Token {
	out := make([]lexer.Token, 0, len(toks)-(sp.to-sp.from)+1)
	out = append(out, toks[:sp.from]...)
	if sp.with != nil {
		out = append(out, *sp.with)
	}
	return append(out, toks[sp.to:]...)
}

// spellingAt looks at the token participle stopped at for the spellings
// the grammar rejects there: `X in (...)` (a name ending in `in`, then
// `(`: nothing may follow a name with `(`) and `X is not null` (a name
// ending in `is`, then `not`: nothing may follow a name with `not`).
func spellingAt(src string, toks []lexer.Token, at int) (spelling, bool) {
	if at <= 0 || at >= len(toks) {
		return spelling{}, false
	}
	t := &toks[at]
	if !mayBeSpelling(toks, at) {
		return spelling{}, false
	}
	switch t.Type {
	case tLParen:
		return inList(src, toks, at)
	case tNot:
		next := near(toks, at, 1)
		if isStandIn(t) || next < 0 || !isIdentTok(&toks[next]) {
			return spelling{}, false
		}
		if lp := near(toks, next, 1); lp >= 0 && toks[lp].Type == tLParen {
			if sp, ok := inList(src, toks, lp); ok {
				return sp, true
			}
		}
		return isNotNull(toks, at, next)
	}
	return spelling{}, false
}

// mayBeSpelling reports whether toks[i] is where spellingAt can find a
// spelling: a `(` or a `not` (not a stand-in) after a name.
func mayBeSpelling(toks []lexer.Token, i int) bool {
	t := &toks[i]
	if t.Type != tLParen && (t.Type != tNot || isStandIn(t)) {
		return false
	}
	p := near(toks, i, -1)
	return p >= 0 && isIdentTok(&toks[p])
}

func anySpellingPlace(toks []lexer.Token) bool {
	for i := range toks {
		if mayBeSpelling(toks, i) {
			return true
		}
	}
	return false
}

// near returns the index of the token k places after (k > 0) or before
// (k < 0) toks[i], not counting stand-ins (the scanner's and the repairs':
// the spellings are read between the tokens the text has), or -1.
func near(toks []lexer.Token, i, k int) int {
	step := 1
	if k < 0 {
		step, k = -1, -k
	}
	for i += step; i >= 0 && i < len(toks); i += step {
		if isStandIn(&toks[i]) {
			continue
		}
		if k--; k == 0 {
			return i
		}
	}
	return -1
}

// isNotNull reports `X is not null` (or `not empty`) at the `not` toks[at]
// followed by the name toks[nx].
func isNotNull(toks []lexer.Token, at, nx int) (spelling, bool) {
	p := near(toks, at, -1)
	if p < 0 {
		return spelling{}, false
	}
	prev, next := &toks[p], &toks[nx]
	first := strings.ToLower(next.Value[:wordEnd(next.Value, 0)])
	if !isNullWord(first) || !isIdentTok(prev) {
		return spelling{}, false
	}
	words := strings.Fields(prev.Value)
	if !strings.EqualFold(words[len(words)-1], "is") {
		return spelling{}, false
	}
	isStart := prev.Pos.Offset + strings.LastIndex(prev.Value, words[len(words)-1])
	field := strings.Join(words[:len(words)-1], " ")
	d := nullDiag(field, first, true, diag.Span{Start: isStart, End: next.Pos.Offset + len(first)})
	return spelling{d: d, from: at, to: nx + 1}, true
}

// inList reports `X in (a, b)` or `X not in (a, b)` at the `(` toks[lp]
// after a name whose last word is `in`. The list is read in the source up
// to its `)`; the repair puts a hole in the place of `X in (...)`, or drops
// `not in (...)`.
func inList(src string, toks []lexer.Token, lp int) (spelling, bool) {
	ip := near(toks, lp, -1)
	if ip < 0 || !isIdentTok(&toks[ip]) {
		return spelling{}, false
	}
	prev := &toks[ip]
	words := strings.Fields(prev.Value)
	if !strings.EqualFold(words[len(words)-1], "in") {
		return spelling{}, false
	}
	inStart := prev.Pos.Offset + len(prev.Value) - len(words[len(words)-1])
	field := strings.Join(words[:len(words)-1], " ")
	fieldStart := prev.Pos.Offset
	negated := false
	from := ip
	with := &lexer.Token{Type: tLeaf, Pos: lexer.Position{Offset: prev.Pos.Offset, Column: standInColumn}}
	if np, idp := near(toks, ip, -1), near(toks, ip, -2); field == "" && np >= 0 && idp >= 0 {
		if not, id := &toks[np], &toks[idp]; not.Type == tNot && isIdentTok(id) {
			field, negated = strings.Join(strings.Fields(id.Value), " "), true
			inStart, fieldStart = not.Pos.Offset, id.Pos.Offset
			from, with = np, nil
		}
	}
	if field != "" {
		// The field is a member chain when names and `of` come before it:
		// `id of file in (1, 2)` is about `id of file`.
		first := ip
		if negated {
			first = near(toks, ip, -2)
		}
		if start := memberChainStart(toks, first); start < fieldStart {
			end := inStart
			if negated {
				end = toks[first].Pos.Offset + len(toks[first].Value)
			}
			field, fieldStart = strings.Join(strings.Fields(src[start:end]), " "), start
		}
	}
	open := toks[lp].Pos.Offset
	// Collect the items up to the matching ")".
	var items []string
	depth, item, end := 1, open+1, len(src)
	for i := open + 1; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			_, j, _ := decodeString(src, i)
			i = j - 1
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 1:
			items = append(items, strings.TrimSpace(src[item:i]))
			item = i + 1
		}
		if depth == 0 {
			items = append(items, strings.TrimSpace(src[item:i]))
			end = i + 1
			break
		}
	}
	if depth != 0 {
		items = append(items, strings.TrimSpace(src[item:]))
	}
	if field == "" {
		field = "X"
	}
	op, join := "=", " or "
	if negated {
		op, join = "!=", " and "
	}
	var parts []string
	for _, it := range items {
		if it != "" {
			parts = append(parts, field+" "+op+" "+it)
		}
	}
	if len(parts) == 0 {
		parts = []string{field + " " + op + " A", field + " " + op + " B"}
	}
	want := strings.Join(parts, join)
	d := diag.Errorf(diag.ClassSyntax, "in-list", diag.Span{Start: inStart, End: end}, "CroQL has no `in`: write `%s`", want)
	if depth != 0 {
		d = d.WithHint("the list is not closed with `)`")
	} else if field != "X" && len(items) == len(parts) {
		// The fix replaces `F in (a, b)` (or `F not in (a, b)`) whole, in
		// parentheses when there is more than one item, so that the
		// comparisons group as the list did in any operand place. The
		// checker keeps it only when the fixed query checks
		// (typecheck.CheckFixes).
		fix := want
		if len(parts) > 1 {
			fix = "(" + want + ")"
		}
		d = d.WithSugarFix(diag.Span{Start: fieldStart, End: end}, fix)
	}
	to := lp
	for to < len(toks)-1 && toks[to].Pos.Offset < end {
		to++
	}
	return spelling{d: d, from: from, to: to, with: with, list: diag.Span{Start: open, End: end}}, true
}

// memberChainStart returns the offset of the first name of the member
// chain (`a of b of c`) that ends with the name toks[i].
func memberChainStart(toks []lexer.Token, i int) int {
	start := toks[i].Pos.Offset
	for {
		of, name := near(toks, i, -1), near(toks, i, -2)
		if of < 0 || name < 0 || toks[of].Type != tLink || !strings.EqualFold(toks[of].Value, "of") || !isIdentTok(&toks[name]) {
			return start
		}
		i, start = name, toks[name].Pos.Offset
	}
}

// spellingDiags sorts the spellings, leaves out the scanner's reports on
// what is inside an in-list but its strings' (the in-list's report replaces
// them) and caps them at MaxErrors.
func spellingDiags(ds diag.List, lists []diag.Span, n int) diag.List {
	if len(lists) > 0 {
		out := ds[:0:0]
		for _, d := range ds {
			if d.Rule == "bad-escape" || d.Rule == "unterminated-string" || !inside(d.Span, lists) {
				out = append(out, d)
			}
		}
		ds = out
	}
	if len(ds) > 1 {
		ds.Sort()
	}
	if len(ds) > MaxErrors {
		ds = append(ds[:MaxErrors:MaxErrors], tooManyErrors(ds[MaxErrors].Span.Start, n))
	}
	return ds
}

func inside(sp diag.Span, lists []diag.Span) bool {
	for _, l := range lists {
		if l.Start <= sp.Start && sp.End <= l.End {
			return true
		}
	}
	return false
}

// publicLexTokens returns the scanner's tokens without stand-ins and
// without what is inside an in-list: the tokens a reader of the text sees
// as CroQL.
func publicLexTokens(toks []lexer.Token, lists []diag.Span) []lexer.Token {
	if len(lists) == 0 && !slices.ContainsFunc(toks, func(t lexer.Token) bool { return isStandIn(&t) }) {
		return toks
	}
	out := toks[:0:0]
	for i := range toks {
		t := &toks[i]
		if isStandIn(t) || (len(lists) > 0 && inside(tokSpan(*t), lists)) && !t.EOF() {
			continue
		}
		out = append(out, *t)
	}
	return out
}

// syntaxError turns participle's error into a diagnostic that names the
// token and says what was expected there.
func syntaxError(src string, toks []lexer.Token, err error) diag.Diagnostic {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return diag.Errorf(diag.ClassSyntax, "unexpected-token", diag.Span{}, "cannot parse the query: %v", err)
	}
	off := perr.Position().Offset
	var ut *participle.UnexpectedTokenError
	if errors.As(err, &ut) {
		off = ut.Unexpected.Pos.Offset
	}
	i := sort.Search(len(toks), func(i int) bool { return toks[i].Pos.Offset >= off })
	if i >= len(toks) {
		i = len(toks) - 1
	}
	tok := toks[i]
	var prev *lexer.Token
	if i > 0 {
		prev = &toks[i-1]
	}
	if tok.EOF() {
		sp := diag.Span{Start: len(src), End: len(src)}
		if prev == nil {
			return diag.Errorf(diag.ClassSyntax, "unexpected-eof", sp, "the query is empty: write a condition such as `is hidden`")
		}
		return diag.Errorf(diag.ClassSyntax, "unexpected-eof", sp,
			"unexpected end of input after `%s`: %s", prev.Value, expectAfter(prev))
	}
	sp := tokSpan(tok)
	found := describe(tok)
	switch {
	case tok.Type == tThen || tok.Type == tElse:
		if prev != nil && !endsOperand(prev) {
			break
		}
		return diag.Errorf(diag.ClassSyntax, "unexpected-token", sp,
			"unexpected `%s`: a conditional is written `if C then A else B`", tok.Value)
	case prev == nil:
		return diag.Errorf(diag.ClassSyntax, "unexpected-token", sp,
			"unexpected %s at the start of the query: expected an operand (a field name, literal, mention, `not`, `-`, `if` or `(`)", found)
	case prev.Type == tLParen && tok.Type == tRParen:
		return diag.Errorf(diag.ClassSyntax, "unexpected-token", diag.Span{Start: prev.Pos.Offset, End: sp.End},
			"empty parentheses: write an expression between `(` and `)`")
	case endsOperand(prev) && startsOperand(&tok):
		return diag.Errorf(diag.ClassSyntax, "unexpected-token", sp,
			"unexpected %s after `%s`: two operands need an operator between them, such as `and`, `or` or `=`", found, prev.Value)
	}
	return diag.Errorf(diag.ClassSyntax, "unexpected-token", sp, "unexpected %s after `%s`: %s", found, prev.Value, expectAfter(prev))
}

// describe names a token in a message.
func describe(t lexer.Token) string {
	if kw := keyword(t.Value); kw != "" {
		return fmt.Sprintf("keyword `%s`", kw)
	}
	if t.Type != tLeaf {
		return "`" + t.Value + "`"
	}
	switch leafKind(t.Value) {
	case leafIdent:
		return fmt.Sprintf("field name `%s`", identName(t.Value))
	case leafInt, leafFloat:
		return "number " + t.Value
	case leafString:
		return "string " + t.Value
	case leafDatetime:
		return "datetime " + t.Value
	}
	return "mention " + t.Value
}

func endsOperand(t *lexer.Token) bool { return t.Type == tLeaf || t.Type == tRParen }

func startsOperand(t *lexer.Token) bool { return t.Type == tLeaf || t.Type == tLParen }

// expectAfter says what may follow token t.
func expectAfter(t *lexer.Token) string {
	if endsOperand(t) {
		return "expected an operator (`and`, `or`, `=`, `of`, `where`, ...), `)` or the end of the query"
	}
	switch strings.ToLower(t.Value) {
	case "where", "with":
		return fmt.Sprintf("the predicate of `%s` is a field name or a condition in parentheses, as in `%s (is up)`", strings.ToLower(t.Value), strings.ToLower(t.Value))
	case "of":
		return "expected the object or collection, as in `count of translations`"
	}
	return "expected an operand (a field name, literal, mention or `(`)"
}
