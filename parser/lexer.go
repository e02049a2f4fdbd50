package parser

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/croql/croql/diag"
)

// Token types of the hand-written lexer, as participle sees them. They are
// coarse on purpose: participle tries the alternatives of a grammar choice
// one by one, each at the cost of an allocation, so every literal and name
// is one type (Leaf, told apart by its first byte, see leafKind) and every
// binary operator another (Op). lexer.EOF is -1.
const (
	tLeaf   lexer.TokenType = -(iota + 2) // name, number, string, datetime or mention
	tOp                                   // = != ≠ < <= > >= ≥ ≤ + - * / and or xor contains between
	tNot                                  // not
	tLink                                 // of where with
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

// keywordType is the token type of each keyword.
var keywordType = map[string]lexer.TokenType{
	"and": tOp, "or": tOp, "xor": tOp, "contains": tOp, "between": tOp,
	"not": tNot, "of": tLink, "where": tLink, "with": tLink, "if": tIf, "then": tThen, "else": tElse,
}

// definition is the lexer.Definition handed to participle. The parser itself
// does not go through it: Parse scans once with [scan], which also runs the
// pre-scan checks, and feeds the tokens to participle directly. It exists so
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

// keywords are the reserved words, matched case-insensitively.
var keywords = [...]string{"and", "or", "xor", "not", "where", "with", "of", "between", "contains", "if", "then", "else"}

// keyword returns the lower-case keyword w spells, or "".
func keyword(w string) string {
	if len(w) < 2 || len(w) > 8 {
		return ""
	}
	for _, k := range keywords {
		if len(k) == len(w) && asciiEqualFold(k, w) {
			return k
		}
	}
	return ""
}

// asciiEqualFold compares lower-case ASCII k with w, ignoring ASCII case.
func asciiEqualFold(k, w string) bool {
	for i := 0; i < len(k); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[i] {
			return false
		}
	}
	return true
}

func isWordStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isWordByte(c byte) bool { return isWordStart(c) || ('0' <= c && c <= '9') }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// level is the state of one parenthesis level during the pre-scan.
type level struct {
	open     int // offset of the "(" (-1 for the top level)
	ifs      int // "if" keywords seen at this level (each nests once more)
	betweens int // "between" waiting for its "and"
}

// scanner tokenises the source and runs the checks that must happen before
// participle sees the tokens: lexical errors, the spellings CroQL does not
// have (==, <>, &&, ||, !, in (...), is null, dotted paths), balanced
// parentheses, and the depth and node limits.
type scanner struct {
	src    string
	lim    Limits
	pos    int
	toks   []lexer.Token
	diags  diag.List
	levels []level
	ifs    int // open "if"s over all levels
	nodes  int // AST nodes the tokens will make
	// stopped is set when a limit is crossed: scanning ends at once.
	stopped bool
	// words of the last identifier token: start offsets of its words.
	identWords []int
}

// scanResult is what the pre-scan hands to the parser.
type scanResult struct {
	toks  []lexer.Token
	diags diag.List
	nodes int
	// stopped: a limit or the error cap ended the scan early.
	stopped bool
}

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
	return scanResult{toks: s.toks, diags: s.diags, nodes: s.nodes, stopped: s.stopped}
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
		s.diags = append(s.diags, diag.Errorf(diag.ClassSyntax, "too-many-errors", diag.Span{Start: d.Span.Start, End: len(s.src)},
			"more than %d syntax errors; the rest of the query is not checked", MaxErrors))
		s.stopped = true
		return
	}
	s.diags = append(s.diags, d)
}

func (s *scanner) emit(t lexer.TokenType, start, end int) {
	s.toks = append(s.toks, lexer.Token{Type: t, Value: s.src[start:end], Pos: lexer.Position{Offset: start, Line: 1, Column: 1}})
}

// node counts one more AST node made by the token at [start, end).
func (s *scanner) node(start, end int) {
	s.nodes++
	if s.nodes > s.lim.MaxNodes && !s.stopped {
		s.add(diag.Errorf(diag.ClassSyntax, "limit-nodes", diag.Span{Start: start, End: end},
			"the query has more than %d syntax nodes; split it", s.lim.MaxNodes).
			WithHint("raise the limit with --max-nodes N (croql lint, sql, query, fmt, explain), or parser.Limits.MaxNodes through croql.WithLimits"))
		s.stopped = true
	}
}

func (s *scanner) depthCheck(start, end int) {
	if d := len(s.levels) - 1 + s.ifs; d > s.lim.MaxDepth && !s.stopped {
		s.add(diag.Errorf(diag.ClassSyntax, "limit-depth", diag.Span{Start: start, End: end},
			"the query nests deeper than %d levels of parentheses and `if`; flatten it", s.lim.MaxDepth).
			WithHint("raise the limit with --max-depth N (croql lint, sql, query, fmt, explain), or parser.Limits.MaxDepth through croql.WithLimits"))
		s.stopped = true
	}
}

func (s *scanner) prevTok(back int) *lexer.Token {
	if i := len(s.toks) - back; i >= 0 {
		return &s.toks[i]
	}
	return nil
}

func (s *scanner) run() {
	src := s.src
	for s.pos < len(src) && !s.stopped {
		c := src[s.pos]
		start := s.pos
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			s.pos++
		case isWordStart(c):
			s.word()
		case isDigit(c):
			s.number()
		case c == '"':
			end, _, ok := s.stringLit(start)
			if ok {
				s.emit(tLeaf, start, end)
				s.node(start, end)
			}
			s.pos = end
		case c == '\'':
			s.datetime()
		case c == '@':
			s.mention()
		case c == '(':
			s.pos++
			if s.inList(start) {
				continue
			}
			s.emit(tLParen, start, s.pos)
			s.levels = append(s.levels, level{open: start})
			s.depthCheck(start, s.pos)
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
		case c == '+' || c == '*' || c == '/' || c == '-':
			s.pos++
			s.op(start)
		case c == '=':
			s.pos++
			if s.pos < len(src) && src[s.pos] == '=' {
				s.pos++
				s.errorf("double-equals", diag.Span{Start: start, End: s.pos}, "CroQL has no `==`: write `=`")
				continue
			}
			s.op(start)
		case c == '!':
			s.pos++
			if s.pos < len(src) && src[s.pos] == '=' {
				s.pos++
				s.op(start)
				continue
			}
			s.errorf("bang-not", diag.Span{Start: start, End: s.pos}, "CroQL has no `!`: write `not`, as in `not is hidden`")
		case c == '<' || c == '>':
			s.pos++
			if s.pos < len(src) && src[s.pos] == '=' {
				s.pos++
			} else if c == '<' && s.pos < len(src) && src[s.pos] == '>' {
				s.pos++
				s.errorf("angle-not-equal", diag.Span{Start: start, End: s.pos}, "CroQL has no `<>`: write `!=`")
				continue
			}
			s.op(start)
		case c == '&':
			s.pos++
			if s.pos < len(src) && src[s.pos] == '&' {
				s.pos++
				s.errorf("double-ampersand", diag.Span{Start: start, End: s.pos}, "CroQL has no `&&`: write `and`")
				continue
			}
			s.errorf("unexpected-char", diag.Span{Start: start, End: s.pos}, "unexpected `&`: write `and`")
		case c == '|':
			s.pos++
			if s.pos < len(src) && src[s.pos] == '|' {
				s.pos++
				s.errorf("double-bar", diag.Span{Start: start, End: s.pos}, "CroQL has no `||`: write `or`")
				continue
			}
			s.errorf("unexpected-char", diag.Span{Start: start, End: s.pos}, "unexpected `|`: write `or`")
		default:
			s.other(start)
		}
	}
}

// op emits an operator token ending at s.pos.
func (s *scanner) op(start int) {
	s.emit(tOp, start, s.pos)
	s.node(start, s.pos)
}

// other handles a byte no rule above starts with: the aliases ≠ ≥ ≤,
// Unicode white space, and everything that is an error.
func (s *scanner) other(start int) {
	r, size := utf8.DecodeRuneInString(s.src[start:])
	s.pos += size
	sp := diag.Span{Start: start, End: s.pos}
	switch {
	case r == '≠' || r == '≥' || r == '≤':
		s.op(start)
	case r == utf8.RuneError && size == 1:
		s.errorf("unexpected-char", sp, "invalid UTF-8 byte 0x%02x; remove it", s.src[start])
	case unicode.IsSpace(r):
		// non-ASCII white space (no-break space, ...) separates tokens too
	case r == '.':
		s.errorf("unexpected-char", sp, "unexpected `.`: CroQL has no dotted paths; write `member of object`, and decimals as `0.5`")
	case r == ',':
		s.errorf("unexpected-char", sp, "unexpected `,`: CroQL has no lists; combine comparisons with `or`")
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
	if kw := keyword(src[start:end]); kw != "" {
		s.pos = end
		s.keyword(kw, start, end)
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
	s.node(start, end)
	s.nullTest(start, end)
}

func (s *scanner) wordEnd(i int) int {
	for i < len(s.src) && isWordByte(s.src[i]) {
		i++
	}
	return i
}

// lastWord returns the text of word k (0-based) of the identifier just scanned.
func (s *scanner) identWord(k int) string {
	return s.src[s.identWords[k]:s.wordEnd(s.identWords[k])]
}

// dotted reports a dotted path a.b.c whose first segment is the last word
// scanned, and returns the end of the path.
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

// nullTest reports "X is null", "X is empty" and "X is not null" (the
// last split by the keyword not into "X is", not, "null").
func (s *scanner) nullTest(start, end int) {
	n := len(s.identWords)
	last := strings.ToLower(s.identWord(n - 1))
	if n >= 2 && (last == "null" || last == "empty") && strings.EqualFold(s.identWord(n-2), "is") {
		field := strings.TrimSpace(s.src[start:s.identWords[n-2]])
		s.nullDiag(field, last, false, diag.Span{Start: s.identWords[n-2], End: end})
		return
	}
	// "X is" not "null ..."
	first := strings.ToLower(s.identWord(0))
	if first != "null" && first != "empty" {
		return
	}
	not, prev := s.prevTok(2), s.prevTok(3)
	if not == nil || prev == nil || not.Type != tNot || !isIdentTok(prev) {
		return
	}
	words := strings.Fields(prev.Value)
	if !strings.EqualFold(words[len(words)-1], "is") {
		return
	}
	isStart := prev.Pos.Offset + strings.LastIndex(prev.Value, words[len(words)-1])
	field := strings.Join(words[:len(words)-1], " ")
	s.nullDiag(field, first, true, diag.Span{Start: isStart, End: start + len(first)})
}

func (s *scanner) nullDiag(field, what string, negated bool, sp diag.Span) {
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
	case !negated:
		msg = fmt.Sprintf("CroQL has no null test (`is null`): an ordering with an absent value is false and an absent bool is false; "+
			"test the value instead, by its type: `not (%s >= 0 or %s < 0)` for a number, `not (%s >= \"\")` for a string, "+
			"`count of %s = 0` for a collection, `not %s` for a bool that is false or absent", f, f, f, f, f)
	default:
		msg = fmt.Sprintf("CroQL has no null test (`is not null`): an ordering with an absent value is false and an absent bool is false; "+
			"test the value instead, by its type: `(%s >= 0 or %s < 0)` for a number, `%s >= \"\"` for a string, "+
			"`count of %s > 0` for a collection, `%s` for a bool that is true", f, f, f, f, f)
	}
	s.errorf("null-test", sp, "%s", msg)
}

// inList reports `X in (a, b)` when the "(" at start follows an identifier
// whose last word is "in", skips the list and returns true.
func (s *scanner) inList(start int) bool {
	prev := s.prevTok(1)
	if prev == nil || !isIdentTok(prev) {
		return false
	}
	words := strings.Fields(prev.Value)
	if !strings.EqualFold(words[len(words)-1], "in") {
		return false
	}
	inStart := prev.Pos.Offset + len(prev.Value) - len(words[len(words)-1])
	field := strings.Join(words[:len(words)-1], " ")
	negated := false
	if field == "" {
		if not, id := s.prevTok(2), s.prevTok(3); not != nil && id != nil && not.Type == tNot && isIdentTok(id) {
			field, negated = strings.Join(strings.Fields(id.Value), " "), true
			inStart = not.Pos.Offset
		}
	}
	// Collect the items up to the matching ")".
	var items []string
	depth, item, end := 1, s.pos, len(s.src)
	for i := s.pos; i < len(s.src); i++ {
		c := s.src[i]
		switch {
		case c == '"':
			j, _, _ := s.stringLit(i)
			i = j - 1
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 1:
			items = append(items, strings.TrimSpace(s.src[item:i]))
			item = i + 1
		}
		if depth == 0 {
			items = append(items, strings.TrimSpace(s.src[item:i]))
			end = i + 1
			break
		}
	}
	if depth != 0 {
		items = append(items, strings.TrimSpace(s.src[item:]))
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
	sp := diag.Span{Start: inStart, End: end}
	d := diag.Errorf(diag.ClassSyntax, "in-list", sp, "CroQL has no `in`: write `%s`", want)
	if depth != 0 {
		d = d.WithHint("the list is not closed with `)`")
	}
	s.add(d)
	s.pos = end
	return true
}

func (s *scanner) keyword(kw string, start, end int) {
	s.emit(keywordType[kw], start, end)
	top := &s.levels[len(s.levels)-1]
	switch kw {
	case "then", "else":
		return
	case "between":
		top.betweens++
	case "and":
		if top.betweens > 0 {
			top.betweens-- // the "and" of a between makes no node
			return
		}
	case "if":
		top.ifs++
		s.ifs++
		s.depthCheck(start, end)
	}
	s.node(start, end)
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
				return
			}
			s.emit(tLeaf, start, i)
			s.node(start, i)
			return
		}
		s.pos = i + 1
		s.errorf("bad-number", diag.Span{Start: start, End: i + 1},
			"a decimal needs digits after the point: write %s.0 or %s", src[start:i], src[start:i])
		return
	}
	s.pos = i
	if _, err := strconv.ParseInt(src[start:i], 10, 64); err != nil {
		s.errorf("int-overflow", diag.Span{Start: start, End: i},
			"the integer %s does not fit in 64 bits (largest is 9223372036854775807); write a smaller number", src[start:i])
		return
	}
	s.emit(tLeaf, start, i)
	s.node(start, i)
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
		s.pos = len(s.src)
		return
	}
	end += start + 2
	s.pos = end
	s.emit(tLeaf, start, end)
	s.node(start, end)
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
		return
	}
	end, _, ok := s.stringLit(k + 1)
	s.pos = end
	lk := strings.ToLower(kind)
	if lk != "user" && lk != "language" {
		s.errorf("bad-mention-kind", diag.Span{Start: start + 1, End: k},
			"unknown mention kind `@%s`: write @user:\"login\" or @language:\"code\"", kind)
		return
	}
	if ok {
		s.emit(tLeaf, start, end)
		s.node(start, end)
	}
}
