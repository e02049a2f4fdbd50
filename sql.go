package croql

import (
	"fmt"

	"github.com/croql/croql/compile"
	"github.com/croql/croql/diag"
	"github.com/croql/croql/schema"
)

// RuleSQL is the rule of the diagnostic SQL reports when a checked query
// cannot be compiled for a dialect (a literal the engine cannot hold, such
// as NUL or invalid UTF-8 for PostgreSQL, or a mapping without a column).
const RuleSQL = "sql"

// SQL checks src and compiles it into a WHERE clause for dialect d over
// the reference mapping (compile.DefaultMapping): every value a bound
// parameter, every identifier quoted. The diagnostics are the check's
// (warnings included); when there is an error the result is nil.
//
//	s, diags := env.SQL(`count of translations > 0`, compile.Postgres{})
//	rows, err := db.Query("SELECT id FROM strings AS t0 WHERE "+s.Where, s.Args...)
func (e *Env) SQL(src string, d compile.Dialect) (*compile.SQL, diag.List) {
	return e.SQLMapped(src, d, compile.DefaultMapping(e.Catalog()))
}

// SQLMapped is SQL over mapping m: a service's own table and column names
// (docs/sql.md shows how to build one).
func (e *Env) SQLMapped(src string, d compile.Dialect, m *compile.Mapping) (*compile.SQL, diag.List) {
	q := e.Check(src)
	if q.Diags.HasErrors() {
		return nil, q.Diags
	}
	s, err := compile.Compile(q, d, m)
	if err != nil {
		return nil, append(q.Diags, diag.Errorf(diag.ClassLogic, RuleSQL, diag.Span{Start: 0, End: len(src)}, "%v", err))
	}
	return s, q.Diags
}

// SQL compiles the query into a WHERE clause for dialect d over the
// reference mapping (compile.DefaultMapping): every value a bound
// parameter, every identifier quoted. The ids the SQL selects are the
// objects Match accepts (docs/sql.md lists where engines can differ).
func (q *Query) SQL(d compile.Dialect) (*compile.SQL, error) {
	return q.SQLMapped(d, compile.DefaultMapping(schema.New()))
}

// SQLMapped is SQL over mapping m (a service's own table and column
// names).
func (q *Query) SQLMapped(d compile.Dialect, m *compile.Mapping) (*compile.SQL, error) {
	s, err := compile.Compile(q.checked, d, m)
	if err != nil {
		return nil, fmt.Errorf("croql: %w", err)
	}
	return s, nil
}
