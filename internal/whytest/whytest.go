// Package whytest checks an explanation (croql.Query.Why, `croql why`)
// against the reference interpreter, by the language alone: each clause's
// printed value is turned back into a query that holds only if the value is
// right (`(clause) = value`, or the null test of its type for an absent
// value), and that query is run by internal/refeval on the object.
package whytest

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/croql/croql"
	"github.com/croql/croql/internal/refeval"
)

// Check checks e, the explanation of obj under env's context, against the
// reference interpreter and the evaluator: the result is the evaluator's
// (a compile of e.Query under env), and every clause's value, as CroQL
// writes it (Shown), is the reference interpreter's. users is the user
// directory, id to login. It returns every disagreement.
func Check(env *croql.Env, users map[int64]string, obj any, e *croql.Explanation) error {
	q, diags := env.Compile(e.Query)
	if diags.HasErrors() {
		return fmt.Errorf("whytest: %s: %v", e.Query, diags.Err())
	}
	var errs []error
	got, err := q.Match(obj)
	if err != nil {
		return fmt.Errorf("whytest: %w", err)
	}
	if got != e.Match {
		errs = append(errs, fmt.Errorf("result: the evaluator says %t, the explanation %t", got, e.Match))
	}
	in := &refeval.Interp{Users: users}
	ref, err := in.Match(q.Checked(), obj)
	if err != nil {
		return err
	}
	if ref != e.Match {
		errs = append(errs, fmt.Errorf("result: the reference interpreter says %t, the explanation %t", ref, e.Match))
	}
	if e.Clause == nil {
		return errors.New("whytest: no clause")
	}
	if e.Clause.Value != e.Match {
		errs = append(errs, fmt.Errorf("the whole query's clause is %v, the result %t", e.Clause.Value, e.Match))
	}
	if !e.Clause.Decides {
		errs = append(errs, errors.New("the whole query does not decide the result"))
	}
	var walk func(c *croql.Clause)
	walk = func(c *croql.Clause) {
		if err := checkClause(env, in, obj, c); err != nil {
			errs = append(errs, fmt.Errorf("clause `%s` = %s: %w", c.Text, c.Shown, err))
		}
		for _, k := range c.Clauses {
			walk(k)
		}
	}
	walk(e.Clause)
	return errors.Join(errs...)
}

// Probe is the query that holds on the object exactly when c's printed
// value is c's value: the clause itself for a predicate that is true, its
// negation for one that is false, `(clause) = value` for a present value,
// and the null test of its type (docs/language.md, `null-test`) for an
// absent one. It is "" for a value the language cannot test.
func Probe(c *croql.Clause) string {
	t := "(" + c.Text + ")"
	switch {
	case c.Type == "bool" && c.Shown == "true":
		return t
	case c.Type == "bool" && c.Shown == "false":
		return "not " + t
	case !c.Absent:
		return t + " = " + c.Shown
	}
	switch c.Type {
	case "int", "float", "user":
		return "not (" + t + " >= 0 or " + t + " < 0)"
	case "string", "language":
		return "not (" + t + ` >= "")`
	case "datetime":
		return "not (" + t + " >= '1970-01-01' or " + t + " < '1970-01-01')"
	}
	return ""
}

func checkClause(env *croql.Env, in *refeval.Interp, obj any, c *croql.Clause) error {
	p := Probe(c)
	if p == "" {
		return fmt.Errorf("a %s value cannot be tested", c.Type)
	}
	q, diags := env.Compile(p)
	if diags.HasErrors() {
		return fmt.Errorf("the probe %s does not compile: %w", p, diags.Err())
	}
	ok, err := in.Match(q.Checked(), obj)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the reference interpreter disagrees: %s is false", p)
	}
	if c.Of != "" {
		if c.Type == "int" && c.Shown != strconv.Itoa(c.Matched) {
			return fmt.Errorf("the count is %s, but %d elements match", c.Shown, c.Matched)
		}
		if c.Matched > c.Total {
			return fmt.Errorf("%d of %d elements", c.Matched, c.Total)
		}
		probe := fmt.Sprintf("count of %s = %d", c.Of, c.Total)
		q, diags := env.Compile(probe)
		if diags.HasErrors() {
			return fmt.Errorf("the probe %s does not compile: %w", probe, diags.Err())
		}
		if ok, err := in.Match(q.Checked(), obj); err != nil || !ok {
			return fmt.Errorf("the reference interpreter disagrees: %s is false (%v)", probe, err)
		}
	}
	return nil
}

// Five is five objects of objs for explaining q: up to three that q
// matches, the rest that it does not, and more matches when there are
// too few others (fewer than five only when objs has fewer).
func Five(q *croql.Query, objs []any) ([]any, error) {
	var yes, no []any
	for _, o := range objs {
		ok, err := q.Match(o)
		if err != nil {
			return nil, fmt.Errorf("whytest: %w", err)
		}
		if ok {
			yes = append(yes, o)
		} else {
			no = append(no, o)
		}
	}
	n := min(len(yes), 3)
	out := append(append([]any{}, yes[:n]...), no[:min(len(no), 5-n)]...)
	return append(out, yes[n:min(len(yes), n+5-len(out))]...), nil
}
