package typecheck

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// RuleTooCostly is the rule of the error a query gets when its estimated
// cost (see CostModel) exceeds the budget.
const RuleTooCostly = "too-costly"

// DefaultMaxCost is the cost budget of one query when none is given: the
// most work units (see CostModel) one evaluation on one object may take
// under the default collection sizes. Every query of the conformance
// corpus and of the property generators costs far less (the dearest is
// about 1e4); the eight-deep nesting of `translations` costs 1.4e11 (137G).
const DefaultMaxCost = 1e6

// DefaultCollectionSize is the size of a collection a CostModel does not
// list.
const DefaultCollectionSize = 10

// CostModel is a static cost model of a checked query: it estimates the
// work of one evaluation on one object of the context, without data.
//
// The unit is one step: reading one node of the checked IR, or visiting
// one element of a collection. A collection read costs its size (the
// reference interpreter materialises it; the SQL engines scan it); `X
// where P` and `X with P` on a collection cost X plus, for each of its
// elements, one visit and P; `count of X` costs X; everything else is the
// sum of its operands plus one. Sizes are per parent object (translations
// per string, votes per translation), so a nested loop multiplies: inside
// `where (...)` a bare `translations` is again the string's translations,
// and n such levels cost about translations^n.
//
// The estimate is an upper bound, not an average: `where` is assumed to
// keep every element, `and`/`or` to evaluate both sides, and `if` both
// branches. When every collection of the data has at most the model's size
// (see MeasureSizes), no evaluation visits more elements than the estimate.
//
// Text lengths count only when TextLengths is set (a server that knows its
// data's statistics sets it): then a comparison of texts (= != < <= > >=,
// between) costs one step per character of each side as well, and `X
// contains Y` costs length(X) × length(Y) steps more (a plain substring
// search compares each position of X with up to all of Y). A literal's
// length is its own; a field's is TextLengths[name], or the largest of
// TextLengths for a text the map does not list. Without TextLengths (the
// default) a text operation is one step whatever the lengths.
type CostModel struct {
	// Sizes maps a collection field's documented name ("translations",
	// "votes", "languages summary") to the number of elements one parent
	// object has.
	Sizes map[string]float64
	// Default is the size of a collection Sizes does not list;
	// DefaultCollectionSize when 0.
	Default float64
	// TextLengths, when not nil, maps a text field's documented name
	// ("text", "identifier", "context") to the average length of its
	// values, in characters: text comparisons and `contains` then cost in
	// proportion to the lengths (see above).
	TextLengths map[string]float64
}

// textLength is the length the model assumes for the text node n.
func (m CostModel) textLength(n Node) float64 {
	var f *schema.Field
	switch n := n.(type) {
	case *Const:
		return float64(utf8.RuneCountInString(n.S))
	case *Field:
		f = n.F
	case *Member:
		f = n.F
	}
	if f != nil {
		if f.Type.Kind != schema.String { // a language code
			return 0
		}
		if l, ok := m.TextLengths[f.Name]; ok && l >= 0 {
			return l
		}
	}
	longest := 0.0
	for _, l := range m.TextLengths {
		longest = max(longest, l)
	}
	return longest
}

// textCost is the cost of the characters a text operation n reads (0 when
// the model has no TextLengths or n is not one).
func (m CostModel) textCost(n Node) float64 {
	if m.TextLengths == nil {
		return 0
	}
	switch n := n.(type) {
	case *Compare:
		if n.Operand == schema.String {
			return m.textLength(n.X) + m.textLength(n.Y)
		}
	case *Between:
		if n.Operand == schema.String {
			return m.textLength(n.X) + m.textLength(n.Lo) + m.textLength(n.Hi)
		}
	case *Contains:
		return m.textLength(n.X) * max(1, m.textLength(n.Sub))
	}
	return 0
}

// DefaultCostModel returns the default collection sizes: generous figures
// for a large project (20 translations and 20 languages per string, 5
// votes and 3 approvals per translation, 10 comments, labels and custom
// fields, 5 screenshots per string, 20 records per TM segment).
func DefaultCostModel() CostModel {
	return CostModel{Sizes: map[string]float64{
		"translations":      20,
		"languages summary": 20,
		"comments":          10,
		"labels":            10,
		"fields":            10,
		"screenshots":       5,
		"votes":             5,
		"approvals":         3,
		"records":           20,
	}, Default: DefaultCollectionSize}
}

// Size is the number of elements per parent the model assumes for the
// collection field f.
func (m CostModel) Size(f *schema.Field) float64 {
	if f != nil {
		if s, ok := m.Sizes[f.Name]; ok && s >= 0 {
			return s
		}
	}
	if m.Default > 0 {
		return m.Default
	}
	return DefaultCollectionSize
}

// Cost estimates the work of one evaluation of the query on one object
// (see CostModel); 0 for a query without a checked root.
func (q *Query) Cost(m CostModel) float64 {
	if q == nil || q.Root == nil {
		return 0
	}
	return m.Cost(q.Root)
}

// Cost estimates the work of one evaluation of n (see CostModel).
func (m CostModel) Cost(n Node) float64 {
	c, _ := m.cost(n, nil)
	return c
}

// cost returns the cost of n and, when n is a collection, the number of
// elements it has at most. When memo is not nil, it records the cost of
// every node.
func (m CostModel) cost(n Node, memo map[Node]float64) (cost, size float64) {
	switch n := n.(type) {
	case nil:
		return 0, 0
	case *Field:
		if n.F.Type.Kind == schema.Collection {
			s := m.Size(n.F)
			cost, size = 1+s, s
		} else {
			cost = 1
		}
	case *Member:
		x, _ := m.cost(n.X, memo)
		if n.F.Type.Kind == schema.Collection {
			s := m.Size(n.F)
			cost, size = 1+x+s, s
		} else {
			cost = 1 + x
		}
	case *Filter:
		x, s := m.cost(n.X, memo)
		p, _ := m.cost(n.Pred, memo)
		if n.X.Type().Kind != schema.Collection { // with on an object
			cost = 1 + x + p
		} else {
			cost, size = 1+x+s*(1+p), s
		}
	default:
		cost = 1 + m.textCost(n)
		for _, k := range Operands(n) {
			kc, _ := m.cost(k, memo)
			cost += kc
		}
	}
	if memo != nil {
		memo[n] = cost
	}
	return cost, size
}

// CostError returns the too-costly error for q when its cost under m
// exceeds budget (a negative budget is unlimited; 0 is DefaultMaxCost),
// and false otherwise. The span is the costly part: the outermost loop (a
// collection filtered by `where`/`with`, or counted) whose own cost
// exceeds the budget, or, when the cost only adds up from several cheaper
// parts, the smallest expression whose parts add up to it.
func (q *Query) CostError(m CostModel, budget float64) (diag.Diagnostic, bool) {
	if q == nil || q.Root == nil || budget < 0 {
		return diag.Diagnostic{}, false
	}
	if budget == 0 {
		budget = DefaultMaxCost
	}
	total := m.Cost(q.Root)
	if total <= budget {
		return diag.Diagnostic{}, false
	}
	memo := map[Node]float64{}
	m.cost(q.Root, memo)
	n := q.Root
	for !isLoop(n) {
		var next Node
		for _, k := range Operands(n) {
			if memo[k] > budget {
				next = k
				break
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	part := memo[n]
	d := diag.Errorf(diag.ClassLogic, RuleTooCostly, n.Span(),
		"the query is too costly: about %s steps per object, over the budget of %s", Approx(total), Approx(budget))
	hint := fmt.Sprintf("estimated %s steps per object against a budget of %s (%s)", Approx(total), Approx(budget), m)
	if part < 0.99*total {
		hint += fmt.Sprintf("; this part costs about %s", Approx(part))
	}
	if loopDepth(n) > 1 {
		hint += "; inside `where (...)` a bare collection is the enclosing object's again, so each nested level multiplies the work: move a condition that does not read the element out of the `where`, and join conditions on one element with `and`"
	}
	return d.WithHint("%s", hint), true
}

// isLoop reports whether n visits the elements of a collection.
func isLoop(n Node) bool {
	switch n := n.(type) {
	case *Count:
		return true
	case *Filter:
		return n.X.Type().Kind == schema.Collection
	}
	return false
}

// loopDepth is the deepest nesting of collection loops in n.
func loopDepth(n Node) int {
	d := 0
	for _, k := range Operands(n) {
		d = max(d, loopDepth(k))
	}
	if f, ok := n.(*Filter); ok && f.X.Type().Kind == schema.Collection {
		// The loop runs X once and the predicate per element.
		return max(loopDepth(f.X), 1+loopDepth(f.Pred))
	}
	return d
}

// String describes the model's sizes for hints.
func (m CostModel) String() string {
	keys := []string{"translations", "votes", "comments"}
	s := "collection sizes"
	for i, k := range keys {
		sep := ", "
		if i == 0 {
			sep = " "
		}
		s += sep + k + " " + strconv.FormatFloat(m.Size(&schema.Field{Name: k}), 'g', -1, 64)
	}
	s += " per parent"
	if m.TextLengths != nil {
		s += ", text lengths from the data"
	}
	return s
}

// Approx formats a cost for messages: 950, 12k, 3.4M, 137G, 1.4e15.
func Approx(c float64) string {
	sig := func(x float64, unit string) string {
		if x >= 10 {
			return strconv.FormatFloat(math.Round(x), 'f', -1, 64) + unit
		}
		return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) + unit
	}
	switch {
	case c >= 1e15 || math.IsInf(c, 0) || math.IsNaN(c):
		return strings.Replace(strconv.FormatFloat(c, 'e', 1, 64), "e+", "e", 1)
	case c >= 1e12:
		return sig(c/1e12, "T")
	case c >= 1e9:
		return sig(c/1e9, "G")
	case c >= 1e6:
		return sig(c/1e6, "M")
	case c >= 1e4:
		return sig(c/1e3, "k")
	}
	return strconv.FormatFloat(math.Round(c), 'f', -1, 64)
}

// MeasureSizes returns a model whose sizes are the largest collections of
// the given root objects (pointers to, or values of, the Go types of
// cat's objects, or slices of them), per collection field name, with
// everything nested reached: a model under which the estimate bounds the
// work on that data. Collections the data lacks get size 0.
func MeasureSizes(cat *schema.Catalog, roots ...any) CostModel {
	m := CostModel{Sizes: map[string]float64{}}
	byType := map[reflect.Type]*schema.Object{}
	for _, o := range cat.Objects {
		if o.GoType != nil {
			if _, ok := byType[o.GoType]; !ok {
				byType[o.GoType] = o
			}
		}
	}
	for _, o := range cat.Objects {
		for _, f := range o.Fields {
			if f.Type.Kind == schema.Collection {
				m.Sizes[f.Name] = 0
			}
		}
	}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
			return
		case reflect.Struct:
		default:
			return
		}
		o := byType[v.Type()]
		if o == nil {
			return
		}
		for _, f := range o.Fields {
			if f.Type.Kind != schema.Collection && f.Type.Kind != schema.Record {
				continue
			}
			fv := v.FieldByName(f.GoName)
			if !fv.IsValid() {
				continue
			}
			if f.Type.Kind == schema.Collection && fv.Kind() == reflect.Slice {
				m.Sizes[f.Name] = max(m.Sizes[f.Name], float64(fv.Len()))
			}
			walk(fv)
		}
	}
	for _, r := range roots {
		walk(reflect.ValueOf(r))
	}
	return m
}
