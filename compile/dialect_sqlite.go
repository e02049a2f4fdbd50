package compile

import (
	"time"

	"github.com/croql/croql/schema"
)

// SQLite is SQLite 3.35 or later (modernc.org/sqlite in this module).
// Booleans are 0 and 1, text compares with the default BINARY collation
// (code points), contains calls croql_contains and a case-insensitive
// contains croql_fold too, Go functions that must be registered on the
// connection (package store does so; see docs/sql.md).
type SQLite struct{}

// FoldFunc is the name of the SQL function SQLite's Fold calls.
const FoldFunc = "croql_fold"

// Name implements Dialect.
func (SQLite) Name() string { return "sqlite" }

// Quote implements Dialect.
func (SQLite) Quote(ident string) string { return quoteWith(ident, '"') }

// Placeholder implements Dialect.
func (SQLite) Placeholder(int) string { return "?" }

// Analyze implements Dialect.
func (d SQLite) Analyze(table string) string { return "ANALYZE " + d.Quote(table) }

// SemiJoinIn implements Dialect: yes (see the compiler's semiJoinIn).
func (SQLite) SemiJoinIn() bool { return true }

// GuardOnKey implements Dialect: SQLite evaluates a WHERE term that reads
// no table before its loop only when the term holds no subquery; a
// guard, an EXISTS, was tested on every row (a page of a query that
// matches nothing read every row: 11 ms over 100,000 strings). A range
// bound on the rowid is computed once before the loop.
func (SQLite) GuardOnKey() bool { return true }

// ReadOnlyTx implements Dialect: the driver refuses the read-only
// option; SQLite's readers never block each other, which is all it would
// buy.
func (SQLite) ReadOnlyTx() bool { return false }

// StatementTimeout implements Dialect: SQLite runs in the process, and the
// driver interrupts a statement when its context ends.
func (SQLite) StatementTimeout(time.Duration) Timeout { return Timeout{} }

// TimedSelect implements Dialect.
func (SQLite) TimedSelect(query string, _ time.Duration) string { return query }

// BulkLoad implements Dialect: the whole load (tables, rows, indexes,
// statistics) is one transaction, so a load that fails (a bad line, a
// full disk) leaves the file as it was. No fsyncs during it (a crash
// rolls the journal back all the same). ANALYZE reads every row, so that
// it writes sqlite_stat4's samples: with them the planner knows that a
// range such as updated > 'today' holds few rows and searches its index
// rather than reading the table in key order for a page (a sampling
// ANALYZE, analysis_limit, writes none). A larger page cache and
// temp_store = MEMORY were measured too: no faster, and 150 MB more
// memory.
func (SQLite) BulkLoad() BulkLoad {
	return BulkLoad{
		TransactionalDDL: true,
		RawInserts:       true,
		Settings: []Setting{
			{Get: "PRAGMA synchronous", Set: "PRAGMA synchronous = ", Value: "OFF"},
		},
	}
}

// MaxParams implements Dialect.
func (SQLite) MaxParams() int { return 32766 }

// Param implements Dialect.
func (SQLite) Param(int, schema.Kind) string { return "?" }

// Bool implements Dialect.
func (SQLite) Bool(b bool) string { return boolWord(b) }

// BoolIs is col = TRUE or col = FALSE, which SQLite searches an index
// for (the column alone, or NOT of it, is tested row by row). Booleans
// are stored as 1 and 0, which TRUE and FALSE are.
func (SQLite) BoolIs(col string, v bool) string { return col + " = " + boolWord(v) }

// NullSafeEq implements Dialect.
func (SQLite) NullSafeEq(x, y string) string { return x + " IS " + y }

// KeyEq implements Dialect: plain =, which the key's index serves.
func (SQLite) KeyEq(key, ref string) string { return key + " = " + ref }

// NullSafeNe implements Dialect.
func (SQLite) NullSafeNe(x, y string) string { return x + " IS NOT " + y }

// ContainsFunc is the name of the SQL function SQLite's Contains calls: a
// substring test on two BLOBs in linear time, registered on the connection
// as croql_fold is. SQLite's own instr takes the product of the two
// lengths, in one step the statement's interrupt cannot stop.
const ContainsFunc = "croql_contains"

// Contains implements Dialect. Both sides go as BLOBs, so that the test
// searches bytes as the evaluator does: on TEXT instr stepped by
// characters, and a needle with bytes that are not UTF-8 ("\x83") was then
// not found inside a character it is part of ("σ" is CF 83).
func (SQLite) Contains(x, sub string) string {
	return ContainsFunc + "(CAST(" + x + " AS BLOB), CAST(" + sub + " AS BLOB))"
}

// Fold implements Dialect. The argument goes as a BLOB, and the function
// returns one: a TEXT value would end at a NUL character on its way
// through the C API. instr on two BLOBs searches bytes, which is what a
// substring test of two folded texts needs.
func (SQLite) Fold(x string) string { return FoldFunc + "(CAST(" + x + " AS BLOB))" }

// ToFloat implements Dialect.
func (SQLite) ToFloat(x string) string { return "CAST(" + x + " AS REAL)" }

// IntArith implements Dialect: SQLite turns an integer result that
// overflows into a REAL, which the subquery drops.
func (SQLite) IntArith(op, x, y string) string {
	e := "(" + x + " " + op + " " + y + ")"
	if y == "" {
		e = "(" + op + "(" + x + "))"
	}
	return "(SELECT CASE WHEN typeof(v) = 'integer' THEN v END FROM (SELECT " + e + " AS v))"
}

// Limit implements Dialect.
func (SQLite) Limit(p string) string { return " LIMIT " + p }

// ColumnType implements Dialect.
func (SQLite) ColumnType(k schema.Kind) string {
	switch k {
	case schema.Bool, schema.Int, schema.User, schema.Datetime, schema.Record, schema.Collection:
		return "INTEGER"
	case schema.Float:
		return "REAL"
	default:
		return "TEXT"
	}
}

// IndexColumn implements Dialect.
func (d SQLite) IndexColumn(col string, _ schema.Kind) string { return d.Quote(col) }

// TableOptions implements Dialect.
func (SQLite) TableOptions() string { return "" }

// CheckString implements Dialect: SQLite binds any string.
func (SQLite) CheckString(string) error { return nil }

// ByteLength implements Dialect: length counts characters of a TEXT and
// bytes of a BLOB.
func (SQLite) ByteLength(x string) string { return "length(CAST(" + x + " AS BLOB))" }
