// Package corpus reads the conformance corpus in testdata/corpus: the
// queries every stage of croql (parser, type checker, evaluator, SQL
// compiler) is tested against, each stage reading the keys it knows.
//
// # Format
//
// A corpus file (*.txt) holds cases separated by blank lines. A case is a
// block of `key: value` lines; its first key is `case: <name>`, unique over
// the whole corpus. A line whose first non-blank character is `#` is a
// comment. Keys may repeat (several `diag:` lines); every key is kept, in
// order, so later stages add their own keys without changing this reader. A
// value that spans lines is written as a here-document:
//
//	query<<EOF
//	count of translations
//	  where (is pre translated) > 0
//	EOF
//
// whose value is the lines between, joined with "\n". A one-line value is
// trimmed of surrounding white space.
//
// Keys used so far: `case`, `context` (strings, translations, tm, glossary,
// concepts; default strings), `edition` (standard or enterprise; default
// standard), `query`, `tree` (the expected grouping as [ast.SExpr] text),
// `fmt` (the expected canonical form, when it differs from the query), and
// `diag` (an expected diagnostic, `<code>/<rule> <start>-<end>`, see
// [ParseDiag]).
package corpus

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/croql/croql/diag"
)

// Case is one corpus entry.
type Case struct {
	// Name is the value of the case key.
	Name string
	// File is the base name of the file the case is in, Line the line of
	// its case key.
	File string
	Line int
	// Values holds every key of the case, `case` included, with its values
	// in the order written.
	Values map[string][]string
	// Keys lists the keys in the order they first appear.
	Keys []string
}

// Get returns the first value of key, or "".
func (c Case) Get(key string) string {
	if v := c.Values[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Has reports whether the case has key.
func (c Case) Has(key string) bool { return len(c.Values[key]) > 0 }

// All returns every value of key.
func (c Case) All(key string) []string { return c.Values[key] }

// Query returns the query of the case.
func (c Case) Query() string { return c.Get("query") }

// Context returns the evaluation context, "strings" when unset.
func (c Case) Context() string {
	if v := c.Get("context"); v != "" {
		return v
	}
	return "strings"
}

// Edition returns the edition, "standard" when unset.
func (c Case) Edition() string {
	if v := c.Get("edition"); v != "" {
		return v
	}
	return "standard"
}

// Where returns "file:line" of the case, for test messages.
func (c Case) Where() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Diags returns the expected diagnostics of the case's `diag` keys.
func (c Case) Diags() ([]Diag, error) {
	var out []Diag
	for _, v := range c.All("diag") {
		d, err := ParseDiag(v)
		if err != nil {
			return nil, fmt.Errorf("%s: case %s: %w", c.Where(), c.Name, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// Diag is an expected diagnostic.
type Diag struct {
	Code string // a diag class, e.g. diag.ClassSyntax
	Rule string
	Span diag.Span
}

func (d Diag) String() string {
	return fmt.Sprintf("%s/%s %d-%d", shortCode(d.Code), d.Rule, d.Span.Start, d.Span.End)
}

// codes maps the short class names used in the corpus to diag classes.
var codes = map[string]string{
	"syntax":  diag.ClassSyntax,
	"logic":   diag.ClassLogic,
	"warning": diag.ClassWarning,
}

func shortCode(code string) string {
	for k, v := range codes {
		if v == code {
			return k
		}
	}
	return code
}

// ParseDiag reads `<code>/<rule> <start>-<end>`, where code is syntax,
// logic or warning (or the full class, croqlInvalidSyntax, ...) and the
// span is in bytes of the query, end exclusive: `syntax/double-equals 2-4`.
func ParseDiag(s string) (Diag, error) {
	head, span, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return Diag{}, fmt.Errorf("diag %q: want <code>/<rule> <start>-<end>", s)
	}
	code, rule, ok := strings.Cut(head, "/")
	if !ok || code == "" || rule == "" {
		return Diag{}, fmt.Errorf("diag %q: want <code>/<rule>", s)
	}
	if full, ok := codes[code]; ok {
		code = full
	}
	a, b, ok := strings.Cut(strings.TrimSpace(span), "-")
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || start < 0 || end < start {
		return Diag{}, fmt.Errorf("diag %q: bad span %q, want <start>-<end>", s, span)
	}
	return Diag{Code: code, Rule: rule, Span: diag.Span{Start: start, End: end}}, nil
}

// Load reads every *.txt file of dir, in name order.
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("corpus: no *.txt files in %s", dir)
	}
	slices.Sort(files)
	var all []Case
	seen := map[string]string{}
	for _, f := range files {
		cases, err := LoadFile(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if prev, dup := seen[c.Name]; dup {
				return nil, fmt.Errorf("corpus: %s: case %q already defined at %s", c.Where(), c.Name, prev)
			}
			seen[c.Name] = c.Where()
		}
		all = append(all, cases...)
	}
	return all, nil
}

// LoadFile reads the cases of one corpus file.
func LoadFile(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	cases, err := Parse(filepath.Base(path), string(data))
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	return cases, nil
}

// Parse reads the cases of one file's text; name is used in errors and
// Case.File.
func Parse(name, text string) ([]Case, error) {
	var (
		cases []Case
		cur   *Case
	)
	flush := func() {
		if cur != nil {
			cases = append(cases, *cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := strings.TrimSuffix(sc.Text(), "\r")
		trimmed := strings.TrimSpace(raw)
		switch {
		case trimmed == "":
			flush()
			continue
		case strings.HasPrefix(trimmed, "#"):
			continue
		}
		key, value, heredoc, err := splitLine(raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if heredoc != "" {
			start := line
			var body []string
			closed := false
			for sc.Scan() {
				line++
				l := strings.TrimSuffix(sc.Text(), "\r")
				if l == heredoc {
					closed = true
					break
				}
				body = append(body, l)
			}
			if !closed {
				return nil, fmt.Errorf("%s:%d: here-document %s<<%s is not closed by a line %q", name, start, key, heredoc, heredoc)
			}
			value = strings.Join(body, "\n")
		}
		if cur == nil {
			if key != "case" {
				return nil, fmt.Errorf("%s:%d: a case starts with `case: <name>`, not %q", name, line, key)
			}
			if value == "" {
				return nil, fmt.Errorf("%s:%d: empty case name", name, line)
			}
			cur = &Case{Name: value, File: name, Line: line, Values: map[string][]string{}}
		} else if key == "case" {
			return nil, fmt.Errorf("%s:%d: case %q starts without a blank line after case %q", name, line, value, cur.Name)
		}
		if _, ok := cur.Values[key]; !ok {
			cur.Keys = append(cur.Keys, key)
		}
		cur.Values[key] = append(cur.Values[key], value)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	flush()
	return cases, nil
}

// splitLine reads `key: value` or `key<<TAG`.
func splitLine(raw string) (key, value, heredoc string, err error) {
	colon := strings.IndexByte(raw, ':')
	here := strings.Index(raw, "<<")
	if here >= 0 && (colon < 0 || here < colon) {
		key = strings.TrimSpace(raw[:here])
		heredoc = strings.TrimSpace(raw[here+2:])
		if !validKey(key) || heredoc == "" || strings.ContainsAny(heredoc, " \t") {
			return "", "", "", fmt.Errorf("bad here-document line %q: want key<<TAG", raw)
		}
		return key, "", heredoc, nil
	}
	if colon < 0 {
		return "", "", "", errors.New("want `key: value`, `key<<TAG`, a `#` comment or a blank line, got " + strconv.Quote(raw))
	}
	key = strings.TrimSpace(raw[:colon])
	if !validKey(key) {
		return "", "", "", fmt.Errorf("bad key %q", key)
	}
	return key, strings.TrimSpace(raw[colon+1:]), "", nil
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r != '_' && r != '-' && r != '.' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
