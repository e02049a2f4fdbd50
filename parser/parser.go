// Package parser turns CroQL text into an [ast.Expr], or into syntax
// diagnostics.
//
// Parsing runs in three steps. A hand-written scanner tokenises the text and
// runs the checks that need no grammar: bad escapes, unterminated strings,
// integer overflow, mention kinds, the spellings CroQL does not have (`==`,
// `<>`, `&&`, `||`, `!`, `in (...)`, `is null`, dotted paths), balanced
// parentheses, and the [Limits] on nesting depth and node count. It reports
// every such finding, sorted by position. When it finds none, the tokens go to
// a participle grammar (grammar.go) that reads operands, their prefixes and
// of/where/with links, and chains of binary operators; the lowering
// (lower.go) applies the precedence table of docs/language.md section 2 to those
// chains with a precedence climber and builds ast nodes with exact byte
// spans. Participle reports the first syntax error it meets; the lowering
// adds the ones it detects (chained comparisons, an `if` or `not` where an
// operand belongs, a member name that is not a field name).
//
// Every diagnostic has the code [diag.ClassSyntax] and a stable rule name
// (for example "double-equals", "missing-paren", "limit-depth"); the list is in
// docs/language.md. A [Parser] is safe for concurrent use.
package parser

import (
	"errors"
	"fmt"
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
	sr := scan(src, p.lim)
	if sr.diags.HasErrors() {
		return nil, sr.diags
	}
	g, err := grammar()
	if err != nil {
		return nil, diag.List{diag.Errorf(diag.ClassSyntax, "internal", diag.Span{}, "internal error: the grammar does not build: %v", err)}
	}
	peek, err := lexer.Upgrade(&sliceLexer{toks: sr.toks})
	if err != nil {
		return nil, diag.List{diag.Errorf(diag.ClassSyntax, "internal", diag.Span{}, "internal error: %v", err)}
	}
	tree, err := g.ParseFromLexer(peek)
	if err != nil {
		return nil, diag.List{syntaxError(src, sr.toks, err)}
	}
	l := lowerer{src: src}
	e, _ := l.expr(tree)
	if len(l.diags) > 0 {
		l.diags.Sort()
		return nil, l.diags
	}
	return e, nil
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
