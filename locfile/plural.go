package locfile

import (
	"errors"
	"strconv"
	"strings"
)

// Categories are the CLDR plural categories, in CLDR's order.
var categories = []string{"zero", "one", "two", "few", "many", "other"}

// IsCategory reports whether s is a CLDR plural category.
func IsCategory(s string) bool {
	switch s {
	case "zero", "one", "two", "few", "many", "other":
		return true
	}
	return false
}

// sample is a CLDR category with an integer of that category (-1 when
// only fractions fall into it).
type sample struct {
	cat string
	n   int64
}

// cardinals are the CLDR cardinal plural categories of common languages,
// each with an integer sample.
var cardinals = func() map[string][]sample {
	m := map[string][]sample{}
	set := func(langs string, s ...sample) {
		for _, l := range strings.Fields(langs) {
			m[l] = s
		}
	}
	set("ja zh ko vi th id ms my lo km yue bo dz ig jv kea sah ses sg to wo yo su", sample{"other", 1})
	set("en de nl sv da nb nn no fi et el hu tr bg ka az kk ky uz ta te ml kn mr ur sw af sq eu gl is mk mn ne ps so tk ug fy lb ha om or pa hi bn gu fa am zu fil tl as si hy ku",
		sample{"one", 1}, sample{"other", 2})
	set("fr es it pt ca", sample{"one", 1}, sample{"many", 1000000}, sample{"other", 2})
	set("ro mo", sample{"one", 1}, sample{"few", 2}, sample{"other", 20})
	set("hr sr bs sh", sample{"one", 1}, sample{"few", 2}, sample{"other", 5})
	set("ru uk be pl", sample{"one", 1}, sample{"few", 2}, sample{"many", 5}, sample{"other", -1})
	set("cs sk", sample{"one", 1}, sample{"few", 2}, sample{"many", -1}, sample{"other", 5})
	set("lt", sample{"one", 1}, sample{"few", 2}, sample{"many", -1}, sample{"other", 10})
	set("lv", sample{"zero", 0}, sample{"one", 1}, sample{"other", 2})
	set("ar", sample{"zero", 0}, sample{"one", 1}, sample{"two", 2}, sample{"few", 3}, sample{"many", 11}, sample{"other", 100})
	set("cy", sample{"zero", 0}, sample{"one", 1}, sample{"two", 2}, sample{"few", 3}, sample{"many", 6}, sample{"other", 4})
	set("he iw", sample{"one", 1}, sample{"two", 2}, sample{"other", 3})
	set("sl", sample{"one", 1}, sample{"two", 2}, sample{"few", 3}, sample{"other", 5})
	set("ga", sample{"one", 1}, sample{"two", 2}, sample{"few", 3}, sample{"many", 7}, sample{"other", 11})
	set("gd", sample{"one", 1}, sample{"two", 2}, sample{"few", 3}, sample{"other", 20})
	set("mt", sample{"one", 1}, sample{"two", 2}, sample{"few", 3}, sample{"many", 11}, sample{"other", 20})
	return m
}()

// baseLanguage is the language subtag of a code: "pt" of "pt-BR" and
// "pt_BR", "sr" of "sr-Latn".
func baseLanguage(code string) string {
	code = strings.ToLower(code)
	if i := strings.IndexAny(code, "-_"); i >= 0 {
		code = code[:i]
	}
	return code
}

// PluralCategories returns the CLDR cardinal plural categories of a
// language in CLDR order, or nil for a language this package does not
// know.
func PluralCategories(lang string) []string {
	s := cardinals[baseLanguage(lang)]
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s))
	for _, c := range categories {
		for _, x := range s {
			if x.cat == c {
				out = append(out, c)
			}
		}
	}
	return out
}

// fallbackForms are the categories of msgstr[0..n-1] when the language is
// not known.
var fallbackForms = [][]string{
	1: {"other"}, 2: {"one", "other"}, 3: {"one", "few", "other"}, 4: {"one", "two", "few", "other"},
	5: {"one", "two", "few", "many", "other"}, 6: {"zero", "one", "two", "few", "many", "other"},
}

// poForms returns the CLDR category of each msgstr index: it evaluates
// the Plural-Forms expression at an integer of each of the language's
// categories ("other" taking an index several categories share). Without
// the language or the expression it falls back to fallbackForms.
func poForms(lang, pluralForms string) ([]string, error) {
	nplurals, expr, err := parsePluralForms(pluralForms)
	if err != nil {
		return nil, err
	}
	if nplurals == 0 {
		return nil, nil
	}
	samples := cardinals[baseLanguage(lang)]
	if expr == nil || samples == nil {
		if nplurals < len(fallbackForms) {
			return fallbackForms[nplurals], nil
		}
		return nil, errors.New("more than 6 plural forms")
	}
	forms := make([]string, nplurals)
	for _, s := range samples {
		if s.n < 0 {
			continue
		}
		i := expr.eval(s.n)
		if i < 0 || i >= int64(nplurals) {
			continue
		}
		if forms[i] == "" || s.cat == "other" {
			forms[i] = s.cat
		}
	}
	for i, f := range forms {
		if f == "" {
			return nil, errors.New("msgstr[" + strconv.Itoa(i) + "] is of no plural category of language " + lang)
		}
	}
	return forms, nil
}

// parsePluralForms reads "nplurals=N; plural=EXPR;"; (0, nil) for an empty
// header.
func parsePluralForms(h string) (int, *pexpr, error) {
	if strings.TrimSpace(h) == "" {
		return 0, nil, nil
	}
	var n int
	var e *pexpr
	for _, part := range strings.Split(h, ";") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "nplurals":
			x, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || x < 1 || x > 6 {
				return 0, nil, errors.New("Plural-Forms: nplurals must be 1 to 6")
			}
			n = x
		case "plural":
			p := &pparser{src: v}
			x, err := p.parse()
			if err != nil {
				return 0, nil, errors.New("Plural-Forms: " + err.Error())
			}
			e = x
		}
	}
	return n, e, nil
}

// pexpr is a node of a Plural-Forms expression (C syntax over n).
type pexpr struct {
	op      string // "n", "num", "!", "?:" or a binary operator
	num     int64
	a, b, c *pexpr
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (e *pexpr) eval(n int64) int64 {
	switch e.op {
	case "n":
		return n
	case "num":
		return e.num
	case "!":
		return b2i(e.a.eval(n) == 0)
	case "?:":
		if e.a.eval(n) != 0 {
			return e.b.eval(n)
		}
		return e.c.eval(n)
	}
	x, y := e.a.eval(n), e.b.eval(n)
	switch e.op {
	case "||":
		return b2i(x != 0 || y != 0)
	case "&&":
		return b2i(x != 0 && y != 0)
	case "==":
		return b2i(x == y)
	case "!=":
		return b2i(x != y)
	case "<":
		return b2i(x < y)
	case ">":
		return b2i(x > y)
	case "<=":
		return b2i(x <= y)
	case ">=":
		return b2i(x >= y)
	case "+":
		return x + y
	case "-":
		return x - y
	case "*":
		return x * y
	case "/", "%":
		if y == 0 {
			return 0
		}
		if e.op == "/" {
			return x / y
		}
		return x % y
	}
	return 0
}

type pparser struct {
	src   string
	pos   int
	depth int
}

var binPrec = map[string]int{"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}

func (p *pparser) parse() (*pexpr, error) {
	e, err := p.ternary()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, errors.New("unexpected " + strconv.Quote(p.src[p.pos:]))
	}
	return e, nil
}

func (p *pparser) space() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *pparser) ternary() (*pexpr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 64 {
		return nil, errors.New("expression nested too deeply")
	}
	c, err := p.binary(1)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '?' {
		p.pos++
		a, err := p.ternary()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, errors.New("a ? without its colon")
		}
		p.pos++
		b, err := p.ternary()
		if err != nil {
			return nil, err
		}
		return &pexpr{op: "?:", a: c, b: a, c: b}, nil
	}
	return c, nil
}

func (p *pparser) op() string {
	p.space()
	for _, o := range []string{"||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%"} {
		if strings.HasPrefix(p.src[p.pos:], o) {
			return o
		}
	}
	return ""
}

func (p *pparser) binary(min int) (*pexpr, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		o := p.op()
		prec, ok := binPrec[o]
		if !ok || prec < min {
			return left, nil
		}
		p.pos += len(o)
		right, err := p.binary(prec + 1)
		if err != nil {
			return nil, err
		}
		left = &pexpr{op: o, a: left, b: right}
	}
}

func (p *pparser) unary() (*pexpr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 64 {
		return nil, errors.New("expression nested too deeply")
	}
	p.space()
	if p.pos >= len(p.src) {
		return nil, errors.New("expression ends early")
	}
	switch c := p.src[p.pos]; {
	case c == '!':
		p.pos++
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &pexpr{op: "!", a: a}, nil
	case c == '(':
		p.pos++
		e, err := p.ternary()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, errors.New("( without )")
		}
		p.pos++
		return e, nil
	case c == 'n':
		p.pos++
		return &pexpr{op: "n"}, nil
	case c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		v, err := strconv.ParseInt(p.src[start:p.pos], 10, 64)
		if err != nil {
			return nil, errors.New("number out of range")
		}
		return &pexpr{op: "num", num: v}, nil
	}
	return nil, errors.New("unexpected " + strconv.Quote(p.src[p.pos:]))
}

// integerCategories are the categories of a language that some integer
// falls into: the forms a file of counts can give (Russian's "other" is
// for fractions only). nil for a language this package does not know.
func integerCategories(lang string) []string {
	var out []string
	for _, c := range PluralCategories(lang) {
		for _, x := range cardinals[baseLanguage(lang)] {
			if x.cat == c && x.n >= 0 {
				out = append(out, c)
			}
		}
	}
	return out
}
