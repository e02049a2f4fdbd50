package croql

import (
	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/typecheck"
)

// RuleSQL is the rule of the diagnostic SQL reports when a checked query
// cannot be compiled for a dialect (a literal the engine cannot hold, such
// as NUL or invalid UTF-8 for PostgreSQL, or a mapping without a column).
// Its span is the part of the query the dialect or mapping cannot take (the
// literal, the field), or the whole query when the error is about no part
// of it (a mapping without a table for the context).
const RuleSQL = "sql"

// SQL checks src and compiles it into a WHERE clause for dialect d over
// the reference mapping (mapping.Default): every value a bound
// parameter, every identifier quoted. The diagnostics are the check's
// (warnings included) and, when the dialect cannot take the query, one of
// rule RuleSQL (see Query.SQL); when there is an error the result is nil.
//
//	s, diags := env.SQL(`count of translations > 0`, compile.Postgres{})
//	rows, err := db.Query("SELECT id FROM strings AS t0 WHERE "+s.Where, s.Args...)
func (e *Env) SQL(src string, d compile.Dialect) (*compile.SQL, diag.List) {
	return e.SQLMapped(src, d, mapping.Default(e.Catalog()))
}

// SQLMapped is SQL over mapping m: a service's own table and column names
// (docs/sql.md shows how to build one).
func (e *Env) SQLMapped(src string, d compile.Dialect, m *mapping.Mapping) (*compile.SQL, diag.List) {
	return e.SQLFor(src, d, m, compile.WholeSet)
}

// SQLFor is SQLMapped for purpose p (compile.CompileFor): compile.Page
// for SQL that reads the first matches in key order (ORDER BY id LIMIT n),
// compile.WholeSet, what SQL and SQLMapped compile for, for SQL that reads
// every match (a count, a full list). Both select the same rows; they
// differ in the forms the engines can stop early on.
func (e *Env) SQLFor(src string, d compile.Dialect, m *mapping.Mapping, p compile.Purpose) (*compile.SQL, diag.List) {
	q, diags := e.Check(src)
	if q == nil {
		return nil, diags
	}
	return translate(q, diags, d, m, p)
}

// SQLForChecked is SQLFor of a query this environment's Check returned:
// it compiles q for dialect d over mapping m and purpose p without
// checking its source again. The diagnostics are q's and, when the
// dialect or mapping cannot take the query, one of rule RuleSQL (as
// SQLFor's); when there is an error the result is nil. A nil q, or one of
// another context, is an error of rule RuleCompile.
func (e *Env) SQLForChecked(q *typecheck.Query, d compile.Dialect, m *mapping.Mapping, p compile.Purpose) (*compile.SQL, diag.List) {
	if dg, ok := e.notChecked(q); !ok {
		return nil, diag.List{dg}
	}
	return translate(q, q.Diags, d, m, p)
}

// SQL compiles the query into a WHERE clause for dialect d over the
// reference mapping (mapping.Default): every value a bound
// parameter, every identifier quoted. The ids the SQL selects are the
// objects Match accepts (docs/sql.md lists where engines can differ). The
// diagnostics are the query's warnings and, when the dialect cannot take
// the query, an error of rule RuleSQL over the part it cannot take, whose
// Cause is compile's error (errors.Is(diags.Err(),
// compile.ErrUnrepresentable) or compile.ErrTooManyParams tell them
// apart); the SQL is nil then.
func (q *Query) SQL(d compile.Dialect) (*compile.SQL, diag.List) {
	return q.SQLMapped(d, mapping.Default(schema.New()))
}

// SQLMapped is SQL over mapping m (a service's own table and column
// names).
func (q *Query) SQLMapped(d compile.Dialect, m *mapping.Mapping) (*compile.SQL, diag.List) {
	return translate(q.checked, q.checked.Diags, d, m, compile.WholeSet)
}

// translate compiles the checked query q, whose diagnostics are diags (no
// error among them), for dialect d over mapping m and purpose p.
func translate(q *typecheck.Query, diags diag.List, d compile.Dialect, m *mapping.Mapping, p compile.Purpose) (*compile.SQL, diag.List) {
	s, err := compile.CompileFor(q, d, m, p)
	if err != nil {
		out := append(diags[:len(diags):len(diags)], backendDiag(RuleSQL, q.Source, err, "%v", err))
		out.Sort()
		return nil, out
	}
	return s, diags
}
