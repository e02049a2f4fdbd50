package editor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/parser"
	"github.com/croql/croql/schema"
)

// CompletionKind tells what a completion item inserts.
type CompletionKind uint8

// The completion kinds.
const (
	CompleteField    CompletionKind = iota // a field name
	CompleteKeyword                        // and, or, where, not, count of, ...
	CompleteOperator                       // = != < ...
	CompleteMention                        // @user:", @language:"
	CompleteValue                          // a login, a language code, an enum value
)

var completionKindNames = [...]string{"field", "keyword", "operator", "mention", "value"}

func (k CompletionKind) String() string {
	if int(k) < len(completionKindNames) {
		return completionKindNames[k]
	}
	return "invalid"
}

// MarshalText writes the kind's name.
func (k CompletionKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// CompletionItem is one thing that can be written at the cursor.
type CompletionItem struct {
	// Label is what a menu shows ("is pre translated", "and", "alice").
	Label string         `json:"label"`
	Kind  CompletionKind `json:"kind"`
	// Detail is the type of a field or value ("bool", "int (may be absent)").
	Detail string `json:"detail,omitempty"`
	// Doc is one line of documentation.
	Doc string `json:"doc,omitempty"`
	// Edition is the lowest edition that has a field ("standard",
	// "enterprise"); empty for other items.
	Edition string `json:"edition,omitempty"`
	// Range is the bytes of the source the item replaces; it contains the
	// cursor.
	Range diag.Span `json:"range"`
	// InsertText replaces Range.
	InsertText string `json:"insertText"`
	// SortText orders the items as Complete returns them (clients that sort
	// by it keep that order).
	SortText string `json:"sortText"`
}

// Rank groups of completion items, best first. A field's group is
// rankField plus how many filters out from the cursor its scope is.
const (
	rankValue    = 0  // enum values, logins, language codes, expected mentions
	rankFollow   = 5  // keywords after a complete operand
	rankField    = 10 // fields of the innermost scope; +1 per scope outwards
	rankContinue = 30 // keywords and operators after an operand that may go on
	rankOperand  = 40 // not, if, count of, mentions
)

// Complete returns the items that can be written at byte offset in the
// text, best first: inside `count of translations where (…)` the fields of a
// translation, then the fields of the string; after a complete operand the
// keywords and operators that can follow it; inside the quotes of
// @user:"…" the logins of the user directory (croql.WithUserIDs), of
// @language:"…" the language codes (croql.WithLanguages), after
// `provider = "` the field's known values. Items are filtered by what is
// typed of the word at the cursor. Inside a leading editor directive (see
// ParseDirective) its settings and their values complete.
func (d *Document) Complete(offset int) []CompletionItem {
	src := d.src
	offset = clampOffset(offset, src)
	c := completer{doc: d, src: src, off: offset, part: d.part, scopes: d.scopesAt(offset)}
	if d.directive.Span.End > 0 && offset <= d.directive.Span.End {
		c.directive(d.text, d.cfg.Catalog)
	} else {
		c.run()
	}
	order := make([]int, len(c.items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return c.rank[order[i]] < c.rank[order[j]] })
	out := make([]CompletionItem, len(order))
	for i, k := range order {
		out[i] = c.items[k]
		out[i].SortText = fmt.Sprintf("%04d", i)
	}
	return out
}

type completer struct {
	doc    *Document
	src    string
	off    int
	part   *parser.Partial
	scopes []*schema.Object
	items  []CompletionItem
	rank   []int
	seen   map[string]bool
}

func (c *completer) add(group int, it CompletionItem) {
	key := it.Kind.String() + "\x00" + it.Label
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.items = append(c.items, it)
	c.rank = append(c.rank, group*10000+len(c.items))
}

func (c *completer) run() {
	if c.stringValue() || c.mentionKind() {
		return
	}
	toks := c.part.Tokens
	// The identifier at or just before the cursor (white space between
	// them: a multi-word name may go on).
	var id *parser.Token
	idx := sort.Search(len(toks), func(i int) bool { return toks[i].Span.End >= c.off })
	if idx < len(toks) && toks[idx].Span.End == c.off {
		switch toks[idx].Kind {
		case parser.TokLParen, parser.TokRParen, parser.TokOperator:
			idx++ // just after a symbol: it is the previous token
		case parser.TokIdent:
		default:
			return // a keyword or literal is still being typed
		}
	}
	if idx < len(toks) && toks[idx].Kind == parser.TokIdent && toks[idx].Span.Start < c.off {
		id = &toks[idx]
	} else if idx > 0 && toks[idx-1].Kind == parser.TokIdent && strings.TrimSpace(c.src[toks[idx-1].Span.End:c.off]) == "" {
		idx--
		id = &toks[idx]
	} else if idx < len(toks) && toks[idx].Span.Start < c.off {
		return // inside a literal, a keyword or an operator
	}
	wordStart, wordEnd := c.off, c.off
	if id != nil {
		wordStart = id.Span.Start
		wordEnd = max(c.off, id.Span.End)
	}
	var prev *parser.Token
	if idx > 0 {
		prev = &toks[idx-1]
	}
	typed := c.src[wordStart:c.off]
	rng := diag.Span{Start: wordStart, End: wordEnd}
	if id != nil {
		c.afterName(id, prev)
	}
	if !expectsOperand(prev) {
		if id == nil {
			c.follow(prev, diag.Span{Start: c.off, End: c.off}, "", rankFollow)
		}
		return
	}
	c.operand(prev, rng, typed)
}

// directive completes the values of the editor directive's settings.
func (c *completer) directive(text string, cat *schema.Catalog) {
	start := c.off
	for start > 0 && text[start-1] != ' ' && text[start-1] != '=' && text[start-1] != ':' {
		start--
	}
	end := c.off
	for end < len(text) && text[end] != ' ' && text[end] != '\n' && text[end] != '\r' {
		end++
	}
	if start == c.off {
		end = c.off // at the start of a word: insert, do not replace it
	}
	typed, rng := text[start:c.off], diag.Span{Start: start, End: end}
	var values []string
	switch before := text[:start]; {
	case strings.HasSuffix(before, "context="):
		for _, x := range cat.Contexts {
			values = append(values, x.Name)
		}
	case strings.HasSuffix(before, "edition="):
		values = []string{schema.Standard.String(), schema.Enterprise.String()}
	case strings.HasSuffix(before, " ") || strings.HasSuffix(before, ":"):
		for _, k := range []string{"context=", "edition="} {
			if strings.HasPrefix(k, typed) {
				c.add(rankValue, CompletionItem{Label: k, Kind: CompleteKeyword, Doc: "A setting of the editor directive.", Range: rng, InsertText: k})
			}
		}
		return
	}
	for _, v := range values {
		if strings.HasPrefix(v, strings.ToLower(typed)) {
			c.add(rankValue, CompletionItem{Label: v, Kind: CompleteValue, Detail: "directive value", Range: rng, InsertText: v})
		}
	}
}

// expectsOperand reports whether an operand follows token t (nil: the
// start of the text).
func expectsOperand(t *parser.Token) bool {
	if t == nil {
		return true
	}
	switch t.Kind {
	case parser.TokOperator, parser.TokLParen:
		return true
	case parser.TokKeyword:
		return ast.Keyword(t.Text) != nil // every keyword of ast.Syntax
	}
	return false
}

// afterName offers the keywords that can follow a name that is complete:
// for `is hidden an|`, whose scanner token is the one name "is hidden an",
// the head `is hidden` is a field and `an` may be the start of `and`.
func (c *completer) afterName(id *parser.Token, prev *parser.Token) {
	text := c.src[id.Span.Start:c.off]
	words := wordStarts(text)
	trailing := strings.HasSuffix(text, " ") || strings.HasSuffix(text, "\t") || strings.HasSuffix(text, "\n")
	for k := len(words); k >= 1; k-- {
		headEnd := len(text)
		if k < len(words) {
			headEnd = words[k]
		} else if !trailing {
			continue // the whole name is still being typed
		}
		head := strings.TrimSpace(text[:headEnd])
		f, _, _ := lookup(head, c.scopes)
		isCount := schema.NormalKey(head) == "count"
		if f == nil && !isCount {
			continue
		}
		start := id.Span.Start + headEnd
		if k == len(words) {
			start = c.off
		}
		group := rankFollow
		if k == len(words) && c.continues(head) {
			group = rankContinue
		}
		var t schema.Type
		if f != nil {
			t = f.Type
		}
		if isCount {
			c.add(group, CompletionItem{Label: "of", Kind: CompleteKeyword, Doc: countOfDoc,
				Range: diag.Span{Start: start, End: max(c.off, start)}, InsertText: "of "})
			return
		}
		c.followType(t, prev, diag.Span{Start: start, End: max(c.off, start)}, c.src[start:c.off], group)
		return
	}
}

// continues reports whether some field in scope has a longer name that
// starts with name's words.
func (c *completer) continues(name string) bool {
	key := schema.NormalKey(name)
	for _, o := range c.scopes {
		for _, f := range o.Fields {
			if len(f.Key) > len(key) && strings.HasPrefix(f.Key, key) {
				return true
			}
		}
	}
	return false
}

func wordStarts(s string) []int {
	var out []int
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\n' || s[i-1] == '\r') {
			out = append(out, i)
		}
	}
	return out
}

// countOfDoc documents `count of`, which is a name and a keyword.
const countOfDoc = "count of C: the number of elements of collection C."

// keywordDoc documents a keyword completion or hover offers: its row of
// ast.Syntax.
func keywordDoc(k string) string {
	if k == "count of" {
		return countOfDoc
	}
	if s := ast.Keyword(k); s != nil {
		return s.Doc
	}
	return ""
}

// follow offers what can follow an operand whose type is not known.
func (c *completer) follow(prev *parser.Token, rng diag.Span, typed string, group int) {
	c.followType(schema.Type{}, prev, rng, typed, group)
}

// followType offers the keywords and operators that can follow an operand
// of type t (Invalid: any).
func (c *completer) followType(t schema.Type, _ *parser.Token, rng diag.Span, typed string, group int) {
	var kws, ops []string
	switch t.Kind {
	case schema.Bool:
		kws, ops = []string{"and", "or", "xor"}, []string{"=", "!="}
	case schema.String:
		kws, ops = []string{"contains", "and", "or"}, []string{"=", "!="}
	case schema.Language:
		ops = []string{"=", "!="}
	case schema.User:
		kws, ops = []string{"with"}, []string{"=", "!="}
	case schema.Int, schema.Float, schema.Datetime:
		kws, ops = []string{"between"}, []string{">", ">=", "<", "<=", "=", "!=", "+", "-", "*", "/"}
		if t.Kind == schema.Datetime {
			ops = ops[:6]
		}
	case schema.Collection:
		kws = []string{"where", "with"}
	case schema.Record:
		kws = []string{"with"}
	default:
		kws, ops = []string{"and", "or", "xor", "contains", "between", "where", "with"}, []string{"=", "!=", ">", ">=", "<", "<="}
	}
	switch c.openIf(rng.Start) {
	case "then":
		kws = append(kws, "then")
	case "else":
		kws = append(kws, "else")
	}
	for _, k := range kws {
		if typed == "" || strings.HasPrefix(k, strings.ToLower(strings.TrimSpace(typed))) {
			c.add(group, CompletionItem{Label: k, Kind: CompleteKeyword, Doc: keywordDoc(k), Range: rng, InsertText: k + " "})
		}
	}
	if strings.TrimSpace(typed) != "" {
		return
	}
	for _, o := range ops {
		c.add(group+1, CompletionItem{Label: o, Kind: CompleteOperator, Range: rng, InsertText: o + " "})
	}
}

// openIf returns the keyword the innermost open `if` before off needs
// next ("then" or "else"), or "".
func (c *completer) openIf(off int) string {
	var stack []string
	levels := []int{0}
	for _, t := range c.part.Tokens {
		if t.Span.Start >= off {
			break
		}
		switch {
		case t.Kind == parser.TokLParen:
			levels = append(levels, len(stack))
		case t.Kind == parser.TokRParen && len(levels) > 1:
			stack = stack[:levels[len(levels)-1]]
			levels = levels[:len(levels)-1]
		case t.Kind == parser.TokKeyword:
			switch n := len(stack); strings.ToLower(t.Text) {
			case "if":
				stack = append(stack, "then")
			case "then":
				if n > levels[len(levels)-1] && stack[n-1] == "then" {
					stack[n-1] = "else"
				}
			case "else":
				if n > levels[len(levels)-1] && stack[n-1] == "else" {
					stack = stack[:n-1]
				}
			}
		}
	}
	if n := len(stack); n > levels[len(levels)-1] {
		return stack[n-1]
	}
	return ""
}

// Match qualities of a label against what is typed, best first.
const (
	matchPrefix      = iota // the label's normal key starts with the typed one
	matchWord               // one typed word starts a word of the label
	matchSubsequence        // the typed key's letters appear in order in the label's
	noMatch
)

// match tells how well label completes typed (by normal keys: case, spaces
// and camelCase do not matter).
func match(label, typed string) int {
	tk := schema.NormalKey(typed)
	if tk == "" {
		return matchPrefix
	}
	lk := schema.NormalKey(label)
	if strings.HasPrefix(lk, tk) {
		return matchPrefix
	}
	if !strings.ContainsAny(strings.TrimSpace(typed), " \t\n") {
		for _, w := range strings.Fields(label) {
			if strings.HasPrefix(strings.ToLower(w), tk) {
				return matchWord
			}
		}
	}
	i := 0
	for j := 0; j < len(lk) && i < len(tk); j++ {
		if lk[j] == tk[i] {
			i++
		}
	}
	if i == len(tk) && len(tk) >= 2 {
		return matchSubsequence
	}
	return noMatch
}

// matches reports whether label completes typed at all, and whether by
// prefix.
func matches(label, typed string) (ok, strong bool) {
	m := match(label, typed)
	return m != noMatch, m == matchPrefix
}

// operand offers what can stand where an operand is expected.
func (c *completer) operand(prev *parser.Token, rng diag.Span, typed string) {
	// After `X =` or `X !=`, the values X takes come first.
	if prev != nil && prev.Kind == parser.TokOperator {
		if f := c.comparedField(prev); f != nil {
			switch {
			case len(f.Enum) > 0:
				for _, v := range f.Enum {
					if ok, _ := matches(v, strings.Trim(typed, `"`)); ok {
						c.add(rankValue, CompletionItem{Label: ast.Quote(v), Kind: CompleteValue, Detail: f.Name + " value",
							Range: rng, InsertText: ast.Quote(v)})
					}
				}
			case f.Type.Kind == schema.User:
				c.mentionItems(rankValue, rng, typed, "user")
			case f.Type.Kind == schema.Language:
				c.mentionItems(rankValue, rng, typed, "language")
			}
		}
	}
	onlyObjects := false
	if prev != nil && strings.EqualFold(prev.Text, "of") {
		onlyObjects = true
	}
	shadowed := map[string]bool{}
	for depth := 0; depth < len(c.scopes); depth++ {
		o := c.scopes[len(c.scopes)-1-depth]
		for _, f := range o.Fields {
			if shadowed[f.Key] {
				continue
			}
			shadowed[f.Key] = true
			if f.Edition > c.doc.cfg.Edition {
				continue
			}
			if onlyObjects && f.Type.Kind != schema.Record && f.Type.Kind != schema.Collection && f.Type.Kind != schema.User {
				continue
			}
			m := match(f.Name, typed)
			if m == noMatch || (f.Key == schema.NormalKey(typed) && strings.TrimSpace(typed) != typed) {
				continue // no match, or the name is already written out
			}
			group := rankField + depth + 10*m
			c.add(group, CompletionItem{Label: f.Name, Kind: CompleteField, Detail: fieldDetail(f), Doc: f.Doc,
				Edition: f.Edition.String(), Range: rng, InsertText: f.Name})
		}
	}
	if onlyObjects {
		return
	}
	for _, k := range []string{"not", "if", "count of"} {
		if ok, _ := matches(k, typed); ok {
			c.add(rankOperand, CompletionItem{Label: k, Kind: CompleteKeyword, Doc: keywordDoc(k), Range: rng, InsertText: k + " "})
		}
	}
	c.mentionItems(rankOperand, rng, typed, "user", "language")
}

// mentionItems offers the mention kinds as @kind:" to go on typing in.
func (c *completer) mentionItems(group int, rng diag.Span, typed string, kinds ...string) {
	for _, k := range kinds {
		label := "@" + k + `:"`
		if t := strings.TrimSpace(typed); t != "" && !strings.HasPrefix(label, t) && !strings.HasPrefix(k, strings.ToLower(t)) {
			continue
		}
		doc := "A user, by login: @user:\"login\"."
		if k == "language" {
			doc = "A language, by code: @language:\"code\"."
		}
		c.add(group, CompletionItem{Label: label, Kind: CompleteMention, Detail: k, Doc: doc, Range: rng, InsertText: label})
	}
}

// comparedField returns the field on the left of the comparison operator
// op, when it is a name or member the scopes resolve.
func (c *completer) comparedField(op *parser.Token) *schema.Field {
	switch op.Text {
	case "=", "!=", "≠":
	default:
		return nil
	}
	var field *schema.Field
	ast.Inspect(c.part.Tree, func(x ast.Expr) bool {
		b, ok := x.(*ast.Binary)
		if !ok || b.OpSpan != op.Span {
			return field == nil
		}
		scopes := c.doc.scopesAt(b.Sp.Start)
		switch l := b.X.(type) {
		case *ast.Ident:
			field, _, _ = lookup(l.Name, scopes)
		case *ast.Member:
			t := typeOf(l.X, scopes)
			if (t.Kind == schema.Record || t.Kind == schema.User) && t.Obj != nil {
				field, _ = t.Obj.Field(l.Name.Name)
			}
		}
		return false
	})
	return field
}

// stringValue completes inside the quotes of a string or mention: the
// logins, the language codes, or the values of the compared enum field.
// It reports whether the cursor is inside quotes.
func (c *completer) stringValue() bool {
	quote, closed, end := -1, false, len(c.src)
	for _, t := range c.part.Tokens {
		if (t.Kind == parser.TokString || t.Kind == parser.TokMention) && t.Span.Start < c.off && c.off < t.Span.End {
			q := t.Span.Start + strings.IndexByte(t.Text, '"')
			if q < t.Span.Start || c.off <= q {
				return t.Kind == parser.TokString
			}
			quote, closed, end = q, true, t.Span.End-1
			break
		}
	}
	if quote < 0 {
		for _, d := range c.part.Diags {
			if d.Rule == "unterminated-string" && d.Span.Start < c.off && c.src[d.Span.Start] == '"' {
				quote = d.Span.Start
			}
		}
	}
	if quote < 0 {
		return false
	}
	typed := c.src[quote+1 : c.off]
	rng := diag.Span{Start: quote + 1, End: end}
	closer := ""
	if !closed {
		closer = `"`
	}
	before := strings.ToLower(c.src[max(0, quote-10):quote])
	users, langs := c.doc.cfg.Users, c.doc.cfg.Languages
	switch {
	case strings.HasSuffix(before, "@user:"):
		logins := make([]string, 0, len(users))
		for l := range users {
			logins = append(logins, l)
		}
		slices.Sort(logins)
		for _, l := range logins {
			if strings.HasPrefix(strings.ToLower(l), strings.ToLower(typed)) {
				c.add(rankValue, CompletionItem{Label: l, Kind: CompleteValue, Detail: fmt.Sprintf("user id %d", users[l]),
					Range: rng, InsertText: unquoted(l) + closer})
			}
		}
	case strings.HasSuffix(before, "@language:"):
		for _, l := range langs {
			if strings.HasPrefix(strings.ToLower(l), strings.ToLower(typed)) {
				c.add(rankValue, CompletionItem{Label: l, Kind: CompleteValue, Detail: "language code",
					Range: rng, InsertText: unquoted(l) + closer})
			}
		}
	default:
		toks := c.part.Tokens
		i := sort.Search(len(toks), func(i int) bool { return toks[i].Span.Start >= quote })
		if i == 0 || toks[i-1].Kind != parser.TokOperator {
			return true
		}
		f := c.comparedField(&toks[i-1])
		if f == nil {
			return true
		}
		for _, v := range f.Enum {
			if strings.HasPrefix(v, typed) {
				c.add(rankValue, CompletionItem{Label: v, Kind: CompleteValue, Detail: f.Name + " value", Doc: f.Doc,
					Range: rng, InsertText: unquoted(v) + closer})
			}
		}
	}
	return true
}

// unquoted is v escaped for the inside of a string literal.
func unquoted(v string) string {
	q := ast.Quote(v)
	return q[1 : len(q)-1]
}

// mentionKind completes `@` and `@us` to the mention kinds.
func (c *completer) mentionKind() bool {
	i := c.off
	for i > 0 && isWordByte(c.src[i-1]) {
		i--
	}
	if i == 0 || c.src[i-1] != '@' {
		return false
	}
	end := c.off
	for end < len(c.src) && (isWordByte(c.src[end]) || c.src[end] == ':') {
		end++
	}
	if end < len(c.src) && c.src[end] == '"' {
		end++
	}
	c.mentionItems(rankValue, diag.Span{Start: i - 1, End: end}, c.src[i-1:c.off], "user", "language")
	return true
}

func isWordByte(b byte) bool {
	return b == '_' || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9')
}
