package croql

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/croql/croql/ast"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// Explanation says why a query matches one object or not: the result, and
// the value of each clause of the query on that object, in the query's own
// words. Query.Why makes it.
type Explanation struct {
	// Query is the query's text.
	Query string `json:"query"`
	// ID is the object's id, 0 for an object without one.
	ID int64 `json:"id"`
	// Match is the query's result on the object: the evaluator's.
	Match bool `json:"match"`
	// Clause is the whole query as a clause; its value is Match.
	Clause *Clause `json:"clause"`
}

// Clause is one part of a query (a predicate, or an operand of a
// comparison or of arithmetic) with its value on the object explained.
//
// Only the parts outside every where/with predicate are clauses: inside a
// predicate a part has one value per element. A `count of X where (P)`
// says instead how many of the elements of X satisfy P (Matched of
// Total), and so does `X with (P)` on a collection.
type Clause struct {
	// Text is the clause as written in the query, Span where (byte
	// offsets).
	Text string    `json:"text"`
	Span diag.Span `json:"span"`
	// Type is the clause's type in the language: bool, int, float,
	// string, datetime, language, user.
	Type string `json:"type"`
	// Value is the value, for JSON: nil when absent, else a bool, an
	// int64 (an int; a user's id), a float64, or a string (a string; a
	// language code; a datetime as 'YYYY-MM-DD HH:MM:SS' in the query's
	// time zone).
	Value any `json:"value"`
	// Absent is true when the clause has no value (docs/language.md,
	// "Absent values"). A predicate is never absent: it is true or false.
	Absent bool `json:"absent"`
	// Shown is the value as CroQL writes it: true, 3, 2.5, "text",
	// '2024-01-31 00:00:00', @language:"de", @user:"alice", or absent. A
	// present value compared with = reads back as itself: `(Text) =
	// Shown` holds on the object.
	Shown string `json:"shown"`
	// Decides is set on a predicate whose value decided the result: every
	// operand of an `and` that is false decides it (any one is enough),
	// every operand of an `or` that is true; when no operand alone decides
	// (an `and` that holds, an `or` that fails, an `xor`), all of them do.
	// A clause under one that did not decide does not decide either.
	Decides bool `json:"decides"`
	// Matched and Total, when Of is set: Matched of the Total elements of
	// Of satisfy the predicate of a where or with.
	Of      string `json:"of,omitempty"`
	Matched int    `json:"matched,omitempty"`
	Total   int    `json:"total,omitempty"`
	// Clauses are the clause's own parts: the operands of and, or, xor,
	// not; the operands of a comparison, contains, between or arithmetic
	// that are not literals; the condition and the branch taken of an if.
	Clauses []*Clause `json:"clauses,omitempty"`
	// Cut is set on a clause whose parts are left out because the
	// explanation reached MaxWhyClauses clauses.
	Cut bool `json:"cut,omitempty"`
}

// hasParts reports whether the explanation of n would list parts.
func hasParts(n typecheck.Node) bool {
	switch n := n.(type) {
	case *typecheck.Logic, *typecheck.Not, *typecheck.IsSet, *typecheck.If:
		return true
	case *typecheck.Compare, *typecheck.Between, *typecheck.Contains, *typecheck.Arith, *typecheck.Neg:
		for _, op := range typecheck.Operands(n) {
			op = unwrap(op)
			if _, lit := op.(*typecheck.Const); !lit && op.Type().Kind != schema.Record && op.Type().Kind != schema.Collection {
				return true
			}
		}
	}
	return false
}

// Why explains the query's result on obj (a pointer to the context's root
// type, as Match takes): the value of every clause, in the query's words,
// and which clauses decided the result, for a match and a non-match alike.
// Absent values are shown as the language defines them (docs/language.md,
// "Absent values").
//
// The clause values are computed by a plain walk over the query's checked
// tree, not by the evaluator that Match runs; Why checks that the two
// agree on the result and returns an error if they do not. A value Match cannot
// evaluate is an error wrapping ErrMisuse. Why is for explaining one
// object to a person: it is much slower than Match.
func (q *Query) Why(obj any) (*Explanation, error) {
	if err := q.CheckValue(obj); err != nil {
		return nil, err
	}
	w := &whyer{q: q, root: reflect.ValueOf(obj).Elem()}
	if w.root.Type() != q.checked.Context.Root.GoType {
		return nil, fmt.Errorf("croql: why: %w: a %s is not a %s", ErrMisuse, w.root.Type(), q.checked.Context.Root.GoType)
	}
	root, err := w.clause(q.checked.Root, true)
	if err != nil {
		return nil, fmt.Errorf("croql: why: %w", err)
	}
	match := q.prog.Match(obj)
	if root.Value != match {
		return nil, fmt.Errorf("croql: why: the evaluator's result (%t) differs from the clauses' (%v)", match, root.Value)
	}
	id, _ := schema.ObjectID(obj)
	return &Explanation{Query: q.checked.Source, ID: id, Match: match, Clause: root}, nil
}

type whyer struct {
	q    *Query
	root reflect.Value // the object
	// clauses counts the clauses made, up to MaxWhyClauses.
	clauses int
}

// MaxWhyClauses bounds the clauses of an explanation: past it, a clause
// is shown with its value but without its parts (Clause.Cut), so that a
// query of thousands of nested parts explains in time and space linear in
// its size times this bound.
const MaxWhyClauses = 256

// value is n's value on the object.
func (w *whyer) value(n typecheck.Node) (any, error) {
	return clauseValue(w.q.checked, n, w.root, w.q.users)
}

// text is the source text of n.
func (w *whyer) text(n typecheck.Node) string {
	sp, src := n.Span(), w.q.checked.Source
	if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
		return ""
	}
	return src[sp.Start:sp.End]
}

// clause explains n, which decides its parent's result when decides is
// set.
func (w *whyer) clause(n typecheck.Node, decides bool) (*Clause, error) {
	n = unwrap(n)
	v, err := w.value(n)
	if err != nil {
		return nil, err
	}
	c := &Clause{Text: w.text(n), Span: n.Span(), Type: typeName(n.Type())}
	w.setValue(c, n.Type(), v)
	if n.Type().Kind == schema.Bool {
		c.Decides = decides
	}
	w.clauses++
	if w.clauses >= MaxWhyClauses {
		c.Cut = hasParts(n)
		return c, nil
	}
	switch n := n.(type) {
	case *typecheck.Logic:
		// An operand decides alone when its value is the result of an and
		// that fails or an or that holds; otherwise all of them do.
		alone := (n.Op == ast.OpAnd && v == false) || (n.Op == ast.OpOr && v == true)
		for _, op := range flatten(n.Op, n, nil) {
			d := decides
			if alone {
				ov, err := w.value(op)
				if err != nil {
					return nil, err
				}
				d = decides && ov == v
			}
			k, err := w.clause(op, d)
			if err != nil {
				return nil, err
			}
			c.Clauses = append(c.Clauses, k)
		}
	case *typecheck.Not:
		err = w.add(c, decides, n.X)
	case *typecheck.IsSet:
		err = w.add(c, decides, n.X)
	case *typecheck.Compare:
		err = w.add(c, decides, n.X, n.Y)
	case *typecheck.Between:
		err = w.add(c, decides, n.X, n.Lo, n.Hi)
	case *typecheck.Contains:
		err = w.add(c, decides, n.X, n.Sub)
	case *typecheck.Arith:
		err = w.add(c, decides, n.X, n.Y)
	case *typecheck.Neg:
		err = w.add(c, decides, n.X)
	case *typecheck.If:
		branch := n.Else
		if cond, err := w.value(n.Cond); err != nil {
			return nil, err
		} else if cond == true {
			branch = n.Then
		}
		err = w.add(c, decides, n.Cond, branch)
	case *typecheck.Count:
		if f, ok := unwrap(n.X).(*typecheck.Filter); ok && f.Kind == ast.Where {
			err = w.elements(c, f)
		}
	case *typecheck.Filter:
		if n.Kind == ast.With && n.X.Type().Kind == schema.Collection {
			err = w.elements(c, &typecheck.Filter{Kind: ast.Where, X: n.X, Pred: n.Pred, Scope: n.Scope, Elem: n.Elem, Sp: n.Sp})
		}
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// add adds the operands of c that are neither literals nor records as its
// clauses.
func (w *whyer) add(c *Clause, decides bool, ops ...typecheck.Node) error {
	for _, op := range ops {
		op = unwrap(op)
		if _, lit := op.(*typecheck.Const); lit {
			continue
		}
		if k := op.Type().Kind; k == schema.Record || k == schema.Collection {
			continue
		}
		k, err := w.clause(op, decides)
		if err != nil {
			return err
		}
		c.Clauses = append(c.Clauses, k)
	}
	return nil
}

// elements sets how many elements of f.X satisfy f.Pred on c.
func (w *whyer) elements(c *Clause, f *typecheck.Filter) error {
	all, err := w.value(f.X)
	if err != nil {
		return err
	}
	some, err := w.value(f)
	if err != nil {
		return err
	}
	total, _ := all.(whyElements)
	matched, _ := some.(whyElements)
	c.Of, c.Matched, c.Total = w.text(f.X), int(matched), int(total)
	return nil
}

// flatten lists the operands of a chain of one logical operator op: and,
// or, xor (two-valued operands, so a chain of xor holds when an odd number
// of them do, however it is grouped).
func flatten(op ast.Op, n typecheck.Node, out []typecheck.Node) []typecheck.Node {
	if l, ok := unwrap(n).(*typecheck.Logic); ok && l.Op == op {
		return flatten(op, l.Y, flatten(op, l.X, out))
	}
	return append(out, n)
}

// unwrap skips the conversions the checker inserts, which are not written
// in the query.
func unwrap(n typecheck.Node) typecheck.Node {
	for {
		f, ok := n.(*typecheck.ToFloat)
		if !ok {
			return n
		}
		n = f.X
	}
}

func typeName(t schema.Type) string {
	switch t.Kind {
	case schema.Bool:
		return "bool"
	case schema.Int:
		return "int"
	case schema.Float:
		return "float"
	case schema.String:
		return "string"
	case schema.Datetime:
		return "datetime"
	case schema.Language:
		return "language"
	case schema.User:
		return "user"
	case schema.Collection:
		return "collection"
	}
	return t.String()
}

// setValue sets c's value, for JSON and as CroQL writes it.
func (w *whyer) setValue(c *Clause, t schema.Type, v any) {
	switch v := v.(type) {
	case nil:
		c.Absent, c.Shown = true, "absent"
	case bool:
		c.Value, c.Shown = v, strconv.FormatBool(v)
	case int64:
		c.Value, c.Shown = v, strconv.FormatInt(v, 10)
		if t.Kind == schema.Datetime {
			s := time.Unix(v, 0).In(w.q.loc).Format(schema.Layout)
			c.Value, c.Shown = s, "'"+s+"'"
		}
	case float64:
		c.Value, c.Shown = v, ast.FormatFloat(v)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			c.Value, c.Shown = nil, strconv.FormatFloat(v, 'g', -1, 64)
		}
	case string:
		c.Value, c.Shown = v, ast.Quote(v)
		if t.Kind == schema.Language {
			c.Shown = "@language:" + ast.Quote(v)
		}
	case whyUser:
		c.Value, c.Shown = int64(v), strconv.FormatInt(int64(v), 10)
		if login, ok := w.q.users[int64(v)]; ok {
			c.Shown = "@user:" + ast.Quote(login)
		}
	case whyElements:
		c.Value, c.Shown = int64(v), strconv.FormatInt(int64(v), 10)
	default:
		c.Shown = fmt.Sprint(v)
	}
}

// String is the explanation as text, one clause a line, parts indented
// under the clause they belong to:
//
//	3: no match
//	`count of translations > 0 and is hidden` is false
//	  `count of translations` = 3; `> 0` is true
//	  `is hidden` is false  (decides)
func (e *Explanation) String() string {
	var b strings.Builder
	result := "match"
	if !e.Match {
		result = "no match"
	}
	if e.ID != 0 {
		fmt.Fprintf(&b, "%d: %s\n", e.ID, result)
	} else {
		fmt.Fprintf(&b, "%s\n", result)
	}
	if e.Clause != nil {
		e.Clause.write(&b, 0, e.Clause)
	}
	return b.String()
}

// maxShown is the length, in characters, past which a value is cut in the
// text form (JSON has it whole).
const maxShown = 80

func (c *Clause) write(b *strings.Builder, depth int, root *Clause) {
	indent := strings.Repeat("  ", depth)
	shown := c.Shown
	kids := c.Clauses
	line := ""
	// A comparison of one clause with literals reads on one line:
	// `count of translations` = 3; `> 0` is true.
	if len(kids) == 1 && len(kids[0].Clauses) == 0 && !kids[0].Cut && kids[0].Type != "bool" && kids[0].Span.Start == c.Span.Start &&
		kids[0].Span.End < c.Span.End && len(c.Text) == c.Span.End-c.Span.Start {
		k := kids[0]
		rest := strings.TrimSpace(c.Text[k.Span.End-c.Span.Start:])
		line = fmt.Sprintf("%s`%s` %s%s; `%s` is %s", indent, oneLine(k.Text), k.equals(), k.elementsNote(), oneLine(rest), shown)
		kids = nil
	} else if c.Type == "bool" {
		line = fmt.Sprintf("%s`%s` is %s%s", indent, oneLine(c.Text), shown, c.elementsNote())
	} else {
		line = fmt.Sprintf("%s`%s` %s%s", indent, oneLine(c.Text), c.equals(), c.elementsNote())
	}
	if c.Decides && c != root {
		line += "  (decides)"
	}
	if c.Cut {
		line += "  (parts left out)"
	}
	b.WriteString(line)
	b.WriteByte('\n')
	for _, k := range kids {
		k.write(b, depth+1, root)
	}
}

// oneLine is s with line breaks and tabs as spaces, so that a clause of a
// query written over several lines stays on its line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// equals is "= value", or "is absent".
func (c *Clause) equals() string {
	if c.Absent {
		return "is absent"
	}
	if utf8.RuneCountInString(c.Shown) > maxShown {
		return "= " + string([]rune(c.Shown)[:maxShown-1]) + "…"
	}
	return "= " + c.Shown
}

func (c *Clause) elementsNote() string {
	if c.Of == "" {
		return ""
	}
	return fmt.Sprintf(" (%d of %d `%s`)", c.Matched, c.Total, oneLine(c.Of))
}
