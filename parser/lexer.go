package parser

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
)

// Token types of the hand-written lexer, as participle sees them. They are
// coarse on purpose: participle tries the alternatives of a grammar choice
// one by one, each at the cost of an allocation, so every literal and name
// is one type (Leaf, told apart by its first byte, see leafKind) and every
// binary operator another (Op). lexer.EOF is -1. Which keyword or symbol
// makes which type is ast.Syntax's Role (see tokenType).
const (
	tLeaf   lexer.TokenType = -(iota + 2) // name, number, string, datetime or mention
	tOp                                   // RoleInfix, RoleBetween: = != ≠ < <= > >= ≥ ≤ + - * / and or xor contains between
	tNot                                  // RolePrefix keyword: not
	tLink                                 // RoleLink: of where with
	tIf                                   // if
	tThen                                 // then
	tElse                                 // else
	tLParen                               // (
	tRParen                               // )
)

var symbols = map[string]lexer.TokenType{
	"EOF":    lexer.EOF,
	"Leaf":   tLeaf,
	"Op":     tOp,
	"Not":    tNot,
	"Link":   tLink,
	"If":     tIf,
	"Then":   tThen,
	"Else":   tElse,
	"LParen": tLParen,
	"RParen": tRParen,
}

// tokenType is the token type of a keyword or symbol of ast.Syntax.
func tokenType(s *ast.Spelling) lexer.TokenType {
	switch s.Role {
	case ast.RolePrefix:
		if s.Keyword {
			return tNot
		}
		return tOp // unary minus is the symbol of binary minus
	case ast.RoleLink:
		return tLink
	case ast.RoleIf:
		return tIf
	case ast.RoleThen:
		return tThen
	case ast.RoleElse:
		return tElse
	}
	return tOp
}

// Kinds of leaf tokens.
const (
	leafIdent = iota
	leafInt
	leafFloat
	leafString
	leafDatetime
	leafMention
)

// leafKind tells what a Leaf token is from its text.
func leafKind(v string) int {
	switch c := v[0]; {
	case c == '"':
		return leafString
	case c == '\'':
		return leafDatetime
	case c == '@':
		return leafMention
	case isDigit(c):
		if strings.IndexByte(v, '.') >= 0 {
			return leafFloat
		}
		return leafInt
	}
	return leafIdent
}

// isIdentTok reports whether t is an identifier.
func isIdentTok(t *lexer.Token) bool {
	return t.Type == tLeaf && t.Value != "" && isWordStart(t.Value[0])
}

// definition is the lexer.Definition handed to participle. The parser itself
// does not go through it: Parse scans once with [scan], which also runs the
// lexical checks and bounds, and feeds the tokens to participle directly. It exists so
// that the participle grammar is built against the real token types, and so
// that the participle parser can be used on its own in tests.
type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType {
	out := make(map[string]lexer.TokenType, len(symbols))
	for k, v := range symbols {
		out[k] = v
	}
	return out
}

func (d definition) Lex(_ string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("croql lexer: %w", err)
	}
	return d.LexString("", string(b))
}

func (definition) LexString(_ string, src string) (lexer.Lexer, error) {
	s := scan(src, Limits{MaxSource: len(src) + 1, MaxDepth: int(^uint(0) >> 1), MaxNodes: int(^uint(0) >> 1)})
	if s.diags.HasErrors() {
		return nil, s.diags.Err()
	}
	return &sliceLexer{toks: s.toks}, nil
}

// sliceLexer replays scanned tokens.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	if l.i >= len(l.toks) {
		return l.toks[len(l.toks)-1], nil
	}
	t := l.toks[l.i]
	l.i++
	return t, nil
}

// keyword returns the lower-case keyword w spells (a row of ast.Syntax),
// or "".
func keyword(w string) string {
	if k := ast.Keyword(w); k != nil {
		return k.Text
	}
	return ""
}

func isWordStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isWordByte(c byte) bool { return isWordStart(c) || ('0' <= c && c <= '9') }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// level is one open parenthesis during the scan.
type level struct {
	open int // offset of the "(" (-1 for the top level)
	ifs  int // "if" tokens since it opened
}

// scanner tokenises the source. It reports the lexical errors: malformed
// literals, characters CroQL does not have, and the spellings it does not
// have that are visible in the characters alone (==, <>, &&, ||, !, dotted
// paths a.b); it matches parentheses; and it enforces the two bounds that
// keep participle's work small, both counts of tokens (see depthCheck and
// countToken). Everything that needs the grammar (in-lists, null tests, how
// many nodes the tree has, which `and` belongs to a `between`) is found by
// the parse (Parser.parse in parser.go).
//
// Where a lexical error stands for an operator or a literal (`==`, `&&`,
// `!`, a string with a bad escape, a number out of range, ...) the scanner
// emits a stand-in token, so that the parse still finds the grammar's
// errors further on; stand-ins are not in the public tokens.
type scanner struct {
	src    string
	lim    Limits
	pos    int
	toks   []lexer.Token
	diags  diag.List
	levels []level
	ifs    int // open "if"s over all levels
	// counted is the syntax tokens so far (see countToken); betweens the
	// `between` tokens not yet followed by an `and`.
	counted, betweens int
	// stopped is set when a limit is crossed: scanning ends at once.
	stopped bool
	// words of the last identifier token: start offsets of its words.
	identWords []int
}

// scanResult is what the scan hands to the parser.
type scanResult struct {
	toks  []lexer.Token
	diags diag.List
	// counted is the count MaxNodes bounds (see countToken).
	counted int
	// stopped: a limit or the error cap ended the scan early.
	stopped bool
}

// standInColumn marks a stand-in token (see scanner): real tokens have
// column 1.
const standInColumn = 0

func isStandIn(t *lexer.Token) bool { return t.Pos.Column == standInColumn }

func scan(src string, lim Limits) scanResult {
	s := &scanner{
		src:    src,
		lim:    lim,
		toks:   make([]lexer.Token, 0, min(len(src)/4+2, 256)),
		levels: make([]level, 1, 8),
	}
	s.levels[0] = level{open: -1}
	s.run()
	if !s.stopped {
		for _, l := range s.levels[1:] {
			s.errorf("missing-paren", diag.Span{Start: l.open, End: l.open + 1},
				"missing `)`: this `(` is never closed; add `)` where the group ends")
		}
	}
	s.toks = append(s.toks, lexer.Token{Type: lexer.EOF, Pos: lexer.Position{Offset: len(src), Line: 1, Column: 1}})
	s.diags.Sort()
	return scanResult{toks: s.toks, diags: s.diags, counted: s.counted, stopped: s.stopped}
}

// MaxErrors is the most syntax errors one Parse reports; past it the scan
// stops with a last "too-many-errors" diagnostic over the rest of the text.
const MaxErrors = 50

func (s *scanner) errorf(rule string, sp diag.Span, format string, args ...any) {
	s.add(diag.Errorf(diag.ClassSyntax, rule, sp, format, args...))
}

func (s *scanner) add(d diag.Diagnostic) {
	if s.stopped {
		return
	}
	if len(s.diags) == MaxErrors {
		s.diags = append(s.diags, tooManyErrors(d.Span.Start, len(s.src)))
		s.stopped = true
		return
	}
	s.diags = append(s.diags, d)
}

func tooManyErrors(start, end int) diag.Diagnostic {
	return diag.Errorf(diag.ClassSyntax, "too-many-errors", diag.Span{Start: start, End: end},
		"more than %d syntax errors; the rest of the query is not checked", MaxErrors)
}

func (s *scanner) emit(t lexer.TokenType, start, end int) {
	s.toks = append(s.toks, lexer.Token{Type: t, Value: s.src[start:end], Pos: lexer.Position{Offset: start, Line: 1, Column: 1}})
	s.countToken(t, nil, start, end)
}

// emitKeyword emits the keyword k at [start, end).
func (s *scanner) emitKeyword(k *ast.Spelling, start, end int) {
	t := tokenType(k)
	s.toks = append(s.toks, lexer.Token{Type: t, Value: s.src[start:end], Pos: lexer.Position{Offset: start, Line: 1, Column: 1}})
	s.countToken(t, k, start, end)
}

// standIn emits a stand-in token for the erroneous text at [start, end):
// an operator or `not` carries the text, a literal is an empty leaf (the
// lowering reads it as a hole). It counts toward no limit.
func (s *scanner) standIn(t lexer.TokenType, start, end int) {
	v := ""
	if t != tLeaf {
		v = s.src[start:end]
	}
	s.toks = append(s.toks, lexer.Token{Type: t, Value: v, Pos: lexer.Position{Offset: start, Line: 1, Column: standInColumn}})
}

// countToken enforces MaxNodes as a bound on tokens, so that participle
// never reads more than about MaxNodes of them. Parentheses, `then` and
// `else` are not counted, every other token is, except that an `and` is
// free while more `between` tokens than free `and`s have been seen: a
// count over the token stream, with no nesting. For a query that parses,
// where every `between` is followed by its `and`, the count is exactly
// ast.Count of its tree (TestScanCountIsNodeCount), so the bound is
// MaxNodes without the scanner knowing how the grammar pairs them.
func (s *scanner) countToken(t lexer.TokenType, k *ast.Spelling, start, end int) {
	switch t {
	case tLParen, tRParen, tThen, tElse:
		return
	}
	if k != nil {
		switch {
		case k.Role == ast.RoleBetween:
			s.betweens++
		case k.Op == ast.OpAnd && s.betweens > 0:
			s.betweens--
			return
		}
	}
	s.counted++
	if s.counted > s.lim.MaxNodes && !s.stopped {
		s.add(diag.Errorf(diag.ClassSyntax, "limit-nodes", diag.Span{Start: start, End: end},
			"the query has more than %d syntax nodes; split it", s.lim.MaxNodes).
			WithHint("raise the limit with --max-nodes N (croql lint, sql, query, fmt, explain), or parser.Limits.MaxNodes through croql.WithLimits"))
		s.stopped = true
	}
}

// depthCheck enforces MaxDepth on the nesting participle recurses through:
// open parentheses, and the `if` tokens inside the innermost ones (each
// `if` nests in the one before it until its parenthesis closes: `else`
// extends to the right). A count of tokens, known before participle runs.
func (s *scanner) depthCheck(start, end int) {
	if d := len(s.levels) - 1 + s.ifs; d > s.lim.MaxDepth && !s.stopped {
		s.add(diag.Errorf(diag.ClassSyntax, "limit-depth", diag.Span{Start: start, End: end},
			"the query nests deeper than %d levels of parentheses and `if`; flatten it", s.lim.MaxDepth).
			WithHint("raise the limit with --max-depth N (croql lint, sql, query, fmt, explain), or parser.Limits.MaxDepth through croql.WithLimits"))
		s.stopped = true
	}
}

// misspelt are the operator spellings of other languages that CroQL does
// not have, longest first, with the token that stands in for each and the
// CroQL that replaces it (the diagnostic's fix; none for the comma).
var misspelt = [...]struct {
	text, rule, msg, fix string
	standIn              lexer.TokenType
}{
	{"==", "double-equals", "CroQL has no `==`: write `=`", "=", tOp},
	{"<>", "angle-not-equal", "CroQL has no `<>`: write `!=`", "!=", tOp},
	{"&&", "double-ampersand", "CroQL has no `&&`: write `and`", "and", tOp},
	{"||", "double-bar", "CroQL has no `||`: write `or`", "or", tOp},
	{"&", "unexpected-char", "unexpected `&`: write `and`", "and", tOp},
	{"|", "unexpected-char", "unexpected `|`: write `or`", "or", tOp},
	{"!", "bang-not", "CroQL has no `!`: write `not`, as in `not is hidden`", "not", tNot},
	{",", "unexpected-char", "unexpected `,`: CroQL has no lists; combine comparisons with `or`", "", tOp},
}

func (s *scanner) run() {
	src := s.src
next:
	for s.pos < len(src) && !s.stopped {
		c := src[s.pos]
		start := s.pos
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			s.pos++
			continue
		case isWordStart(c):
			s.word()
			continue
		case isDigit(c):
			s.number()
			continue
		case c == '"':
			end, _, ok := s.stringLit(start)
			if ok {
				s.emit(tLeaf, start, end)
			} else {
				s.standIn(tLeaf, start, end)
			}
			s.pos = end
			continue
		case c == '\'':
			s.datetime()
			continue
		case c == '@':
			s.mention()
			continue
		case c == '(':
			s.pos++
			s.emit(tLParen, start, s.pos)
			s.levels = append(s.levels, level{open: start})
			s.depthCheck(start, s.pos)
			continue
		case c == ')':
			s.pos++
			if len(s.levels) == 1 {
				s.errorf("unmatched-paren", diag.Span{Start: start, End: s.pos},
					"unexpected `)`: there is no `(` for it to close; remove it or add the `(`")
				continue
			}
			top := s.levels[len(s.levels)-1]
			s.ifs -= top.ifs
			s.levels = s.levels[:len(s.levels)-1]
			s.emit(tRParen, start, s.pos)
			continue
		}
		if sym := ast.Symbol(src[start:]); sym != nil {
			// A misspelling that is longer than the symbol wins (`==`, `<>`).
			for _, m := range misspelt {
				if len(m.text) > len(sym.Text) && strings.HasPrefix(src[start:], m.text) {
					s.misspelling(m.text, m.rule, m.msg, m.fix, m.standIn)
					continue next
				}
			}
			s.pos += len(sym.Text)
			s.emit(tokenType(sym), start, s.pos)
			continue
		}
		for _, m := range misspelt {
			if strings.HasPrefix(src[start:], m.text) {
				s.misspelling(m.text, m.rule, m.msg, m.fix, m.standIn)
				continue next
			}
		}
		s.other(start)
	}
}

// misspelling reports an operator spelling CroQL does not have at s.pos,
// with a sugar fix (its meaning is plain) that writes fix in its place (a word gets the spaces that
// separate it from its neighbours: `a&&b` is `a and b`).
func (s *scanner) misspelling(text, rule, msg, fix string, t lexer.TokenType) {
	start := s.pos
	s.pos += len(text)
	sp := diag.Span{Start: start, End: s.pos}
	d := diag.Errorf(diag.ClassSyntax, rule, sp, "%s", msg)
	if fix != "" {
		if isWordStart(fix[0]) {
			if start > 0 && !isSpaceOrParen(s.src[start-1]) {
				fix = " " + fix
			}
			if s.pos < len(s.src) && !isSpaceOrParen(s.src[s.pos]) || s.pos < len(s.src) && s.src[s.pos] == '(' {
				fix += " "
			}
		}
		d = d.WithSugarFix(sp, fix)
	}
	s.add(d)
	s.standIn(t, start, s.pos)
}

// isSpaceOrParen reports whether b separates a word from what is next to it.
func isSpaceOrParen(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '(' || b == ')'
}

// other handles a byte no rule above starts with: Unicode white space, and
// everything that is an error.
func (s *scanner) other(start int) {
	r, size := utf8.DecodeRuneInString(s.src[start:])
	s.pos += size
	sp := diag.Span{Start: start, End: s.pos}
	switch {
	case r == utf8.RuneError && size == 1:
		s.errorf("unexpected-char", sp, "invalid UTF-8 byte 0x%02x; remove it", s.src[start])
	case unicode.IsSpace(r):
		// non-ASCII white space (no-break space, ...) separates tokens too
	case r == '.':
		s.errorf("unexpected-char", sp, "unexpected `.`: CroQL has no dotted paths; write `member of object`, and decimals as `0.5`")
	case r == '“' || r == '”' || r == '„':
		s.errorf("unexpected-char", sp, "unexpected %q: strings take straight double quotes, as in \"text\"", r)
	case r == '‘' || r == '’' || r == '`':
		s.errorf("unexpected-char", sp, "unexpected %q: datetimes take straight single quotes, as in '2024-01-01', strings straight double quotes", r)
	default:
		s.errorf("unexpected-char", sp, "unexpected character %q: a query is made of field names, literals, mentions, operators and parentheses", r)
	}
}

// word scans a run of words: a keyword, or an identifier made of every
// consecutive non-keyword word.
func (s *scanner) word() {
	src := s.src
	start := s.pos
	end := s.wordEnd(start)
	if kw := ast.Keyword(src[start:end]); kw != nil {
		s.pos = end
		if kw.Role == ast.RoleIf {
			s.levels[len(s.levels)-1].ifs++
			s.ifs++
			s.depthCheck(start, end)
		}
		s.emitKeyword(kw, start, end)
		return
	}
	s.identWords = s.identWords[:0]
	s.identWords = append(s.identWords, start)
	for {
		if end < len(src) && src[end] == '.' && end+1 < len(src) && isWordStart(src[end+1]) {
			end = s.dotted(end)
			break
		}
		// Look past white space for another non-keyword word.
		j := end
		for j < len(src) {
			c := src[j]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				j++
				continue
			}
			if c >= utf8.RuneSelf {
				if r, size := utf8.DecodeRuneInString(src[j:]); unicode.IsSpace(r) {
					j += size
					continue
				}
			}
			break
		}
		if j == end || j >= len(src) || !isWordStart(src[j]) {
			break
		}
		e := s.wordEnd(j)
		if keyword(src[j:e]) != "" {
			break
		}
		s.identWords = append(s.identWords, j)
		end = e
	}
	s.pos = end
	s.emit(tLeaf, start, end)
}

func (s *scanner) wordEnd(i int) int {
	for i < len(s.src) && isWordByte(s.src[i]) {
		i++
	}
	return i
}

// dotted reports a dotted path a.b.c whose first segment is the last word
// scanned, and returns the end of the path. A `.` between two words with
// no space is a spelling visible in the characters, like `==`: CroQL's
// only `.` is the decimal point.
func (s *scanner) dotted(dot int) int {
	first := s.identWords[len(s.identWords)-1]
	segs := []string{s.src[first:dot]}
	end := dot
	for end < len(s.src) && s.src[end] == '.' && end+1 < len(s.src) && isWordStart(s.src[end+1]) {
		e := s.wordEnd(end + 1)
		segs = append(segs, s.src[end+1:e])
		end = e
	}
	rev := make([]string, len(segs))
	for i, seg := range segs {
		rev[len(segs)-1-i] = seg
	}
	want := strings.Join(rev, " of ")
	sp := diag.Span{Start: first, End: end}
	s.add(diag.Errorf(diag.ClassSyntax, "dotted-path", sp,
		"CroQL has no dotted paths: write `%s`", want).WithFix(sp, want))
	return end
}

// number scans an integer or a decimal.
func (s *scanner) number() {
	src := s.src
	start := s.pos
	i := start
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '.' {
		if i+1 < len(src) && isDigit(src[i+1]) {
			i++
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			s.pos = i
			if _, err := strconv.ParseFloat(src[start:i], 64); err != nil {
				s.errorf("float-overflow", diag.Span{Start: start, End: i},
					"the decimal %s is out of the range of a 64-bit float; write a smaller number", src[start:i])
				s.standIn(tLeaf, start, i)
				return
			}
			s.emit(tLeaf, start, i)
			return
		}
		s.pos = i + 1
		s.errorf("bad-number", diag.Span{Start: start, End: i + 1},
			"a decimal needs digits after the point: write %s.0 or %s", src[start:i], src[start:i])
		s.standIn(tLeaf, start, i+1)
		return
	}
	s.pos = i
	if _, err := strconv.ParseInt(src[start:i], 10, 64); err != nil {
		s.errorf("int-overflow", diag.Span{Start: start, End: i},
			"the integer %s does not fit in 64 bits (largest is 9223372036854775807); write a smaller number", src[start:i])
		s.standIn(tLeaf, start, i)
		return
	}
	s.emit(tLeaf, start, i)
}

// stringLit checks the double-quoted string at start and returns its end,
// its decoded value and whether it is well formed. Errors are reported.
func (s *scanner) stringLit(start int) (end int, val string, ok bool) {
	v, end, errs := decodeString(s.src, start)
	for _, d := range errs {
		s.add(d)
	}
	return end, v, len(errs) == 0
}

// decodeString decodes the string literal starting with the quote at
// src[start]. It returns the value, the offset after the closing quote (or
// len(src)), and any diagnostics.
func decodeString(src string, start int) (string, int, []diag.Diagnostic) {
	var errs []diag.Diagnostic
	i := start + 1
	// Fast path: no escapes.
	j := i
	for j < len(src) && src[j] != '"' && src[j] != '\\' {
		j++
	}
	if j < len(src) && src[j] == '"' {
		return src[i:j], j + 1, nil
	}
	var b strings.Builder
	b.WriteString(src[i:j])
	i = j
	for {
		if i >= len(src) {
			errs = append(errs, diag.Errorf(diag.ClassSyntax, "unterminated-string", diag.Span{Start: start, End: len(src)},
				"unterminated string: add the closing `\"` (write `\\\"` for a quote inside the string)"))
			return b.String(), len(src), errs
		}
		c := src[i]
		switch c {
		case '"':
			return b.String(), i + 1, errs
		case '\\':
			if i+1 >= len(src) {
				i++
				continue // reported as unterminated
			}
			switch src[i+1] {
			case '"':
				b.WriteByte('"')
			case '\\':
				b.WriteByte('\\')
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u':
				k := i + 2
				for k < len(src) && k < i+6 && isHex(src[k]) {
					k++
				}
				if k-i != 6 {
					errs = append(errs, diag.Errorf(diag.ClassSyntax, "bad-escape", diag.Span{Start: i, End: k},
						"`\\u` takes exactly four hex digits, as in `\\u00e9`"))
					i = k
					continue
				}
				n, _ := strconv.ParseUint(src[i+2:k], 16, 32)
				if r := rune(n); utf8.ValidRune(r) {
					b.WriteRune(r)
				} else {
					errs = append(errs, diag.Errorf(diag.ClassSyntax, "bad-escape", diag.Span{Start: i, End: k},
						"`%s` is a UTF-16 surrogate, not a character; write the character itself", src[i:k]))
				}
				i = k
				continue
			default:
				_, size := utf8.DecodeRuneInString(src[i+1:])
				errs = append(errs, diag.Errorf(diag.ClassSyntax, "bad-escape", diag.Span{Start: i, End: i + 1 + size},
					"unknown escape `%s`: the escapes are \\\" \\\\ \\n \\t \\r \\uXXXX; write `\\\\` for a backslash", src[i:i+1+size]))
				i += 1 + size
				continue
			}
			i += 2
		default:
			k := i + 1
			for k < len(src) && src[k] != '"' && src[k] != '\\' {
				k++
			}
			b.WriteString(src[i:k])
			i = k
		}
	}
}

func isHex(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// datetime scans a single-quoted literal.
func (s *scanner) datetime() {
	start := s.pos
	end := strings.IndexByte(s.src[start+1:], '\'')
	if end < 0 {
		s.errorf("unterminated-string", diag.Span{Start: start, End: len(s.src)},
			"unterminated datetime literal: add the closing `'`, as in '2024-01-01 00:00:00'")
		s.standIn(tLeaf, start, len(s.src))
		s.pos = len(s.src)
		return
	}
	end += start + 2
	s.pos = end
	s.emit(tLeaf, start, end)
}

// mention scans @kind:"value".
func (s *scanner) mention() {
	src := s.src
	start := s.pos
	k := s.wordEnd(start + 1)
	kind := src[start+1 : k]
	if kind == "" || k >= len(src) || src[k] != ':' || k+1 >= len(src) || src[k+1] != '"' {
		s.pos = k
		s.errorf("bad-mention", diag.Span{Start: start, End: k},
			"a mention is written @user:\"login\" or @language:\"code\"")
		s.standIn(tLeaf, start, k)
		return
	}
	end, _, ok := s.stringLit(k + 1)
	s.pos = end
	lk := strings.ToLower(kind)
	if lk != "user" && lk != "language" {
		s.errorf("bad-mention-kind", diag.Span{Start: start + 1, End: k},
			"unknown mention kind `@%s`: write @user:\"login\" or @language:\"code\"", kind)
		s.standIn(tLeaf, start, end)
		return
	}
	if ok {
		s.emit(tLeaf, start, end)
	} else {
		s.standIn(tLeaf, start, end)
	}
}
