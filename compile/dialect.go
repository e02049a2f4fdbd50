package compile

import (
	"fmt"
	"strings"
	"time"

	"github.com/croql/croql/schema"
)

// Dialect is what differs between SQL engines. The compiler, the DDL
// generator and the loader ask the dialect for every engine-specific piece
// of text; nothing else in the package looks at which engine it targets.
//
// The implementations are [Postgres], [SQLite], [MySQL] (MySQL 8 and
// MariaDB 10.5+) and [Vitess] (a sharded MySQL keyspace). They are small immutable values: use them as
// compile.Postgres{}.
type Dialect interface {
	// Name is "postgres", "sqlite", "mysql" or "vitess".
	Name() string
	// Quote quotes an identifier (a table or column name from the Mapping).
	Quote(ident string) string
	// Placeholder is parameter number n (1-based) without a cast, where the
	// engine knows its type (INSERT values).
	Placeholder(n int) string
	// Param renders parameter number n (1-based) holding a value of kind
	// k, with whatever cast or collation the engine needs to give it that
	// type (PostgreSQL infers nothing from an untyped parameter; string
	// parameters compare by code point everywhere).
	Param(n int, k schema.Kind) string
	// Bool is the literal for true or false.
	Bool(b bool) string
	// NullSafeEq is x = y where NULL equals NULL and never yields NULL;
	// NullSafeNe is its negation.
	NullSafeEq(x, y string) string
	NullSafeNe(x, y string) string
	// KeyEq is key = ref where key is a table's (never NULL) key and ref
	// the reference to a row of it, for `with` on an object and for members:
	// false when ref is NULL.
	KeyEq(key, ref string) string
	// Contains is the case-sensitive substring test "x contains sub",
	// true for an empty sub; NULL when either side is NULL.
	Contains(x, sub string) string
	// ByteLength is the length in bytes (of its UTF-8 encoding) of a text
	// expression: what the quotas on stored text count.
	ByteLength(x string) string
	// Fold is the case folding of a string expression used on both sides
	// of a case-insensitive contains (see docs/sql.md for the characters
	// where engines differ from the evaluator).
	Fold(x string) string
	// ToFloat converts an integer expression to a double.
	ToFloat(x string) string
	// IntArith is the 64-bit integer x op y (op "+", "-" or "*"), and with
	// y empty the negation op x (op "-"): NULL when either operand is NULL
	// and, the language's overflow rule, when the exact result is outside
	// the int64 range. It never fails the query.
	IntArith(op, x, y string) string
	// Limit is the clause that limits a SELECT to the rows counted by
	// parameter expression p.
	Limit(p string) string
	// ColumnType is the DDL type of a column holding values of kind k
	// (Record and Collection keys are Int).
	ColumnType(k schema.Kind) string
	// IndexColumn is how column col of kind k appears in an index
	// definition (MySQL indexes a prefix of long text).
	IndexColumn(col string, k schema.Kind) string
	// TableOptions follows the closing parenthesis of CREATE TABLE.
	TableOptions() string
	// CheckString reports a string value the engine cannot store or bind.
	CheckString(s string) error
	// Analyze is the statement that refreshes the planner's statistics of
	// one table (one table per statement: a list of tables in one
	// statement is a syntax error on MySQL-protocol proxies).
	Analyze(table string) string
	// MaxParams is the most parameters one statement may have.
	MaxParams() int

	// ReadOnlyTx reports whether a transaction that only reads is begun
	// with the read-only option (false where the driver refuses it).
	ReadOnlyTx() bool
	// StatementTimeout is how the server stops each following statement
	// of a transaction that runs longer than left, where the engine can
	// (PostgreSQL's statement_timeout for the transaction, MariaDB's
	// max_statement_time for the session); the driver cancels the
	// statement when its context ends on every engine. Package store runs
	// it (store.TimedTx).
	StatementTimeout(left time.Duration) Timeout
	// TimedSelect is query, a SELECT, with the hint that bounds its time
	// where the engine reads one (MySQL 8's MAX_EXECUTION_TIME).
	TimedSelect(query string, left time.Duration) string
	// BulkLoad says how the loader feeds the engine.
	BulkLoad() BulkLoad
	// SemiJoinIn reports whether "some element matches" is planned better
	// as `key IN (SELECT fk ... WHERE P)` than as a correlated EXISTS, and
	// "no element matches" as `key NOT IN (...)` than as NOT EXISTS.
	SemiJoinIn() bool
	// GuardOnKey reports whether a page's guard (see guarded) is written
	// as a range on the parent row's key, `key >= (CASE WHEN guard THEN
	// <least integer> END)`, instead of `guard AND`: an engine that tests
	// a constant term with a subquery on every row (SQLite) reads a range
	// bound once, before the loop, and a NULL bound ends the loop at once.
	GuardOnKey() bool
}

// BulkLoad is how the loader feeds an engine: what is built when, and the
// connection settings of a load.
type BulkLoad struct {
	// TransactionalDDL: CREATE TABLE and CREATE INDEX run inside the
	// load's transaction, so that a load which fails leaves nothing
	// behind (SQLite). Otherwise the rows are committed before the
	// indexes are built, and a caller wanting an atomic load builds into
	// a scratch schema and swaps it in (package store does).
	TransactionalDDL bool
	// KeysAfterRows leaves the PRIMARY KEY out of CREATE TABLE and adds it
	// after the rows (building a key once is cheaper than keeping it up to
	// date through a bulk load).
	KeysAfterRows bool
	// UnloggedTable replaces "CREATE TABLE " for tables of WithUnlogged.
	UnloggedTable string
	// Settings are set on the load's connection ("PRAGMA synchronous") to
	// Value before the load and put back after it.
	Settings []Setting
	// RawInserts sends multi-row INSERTs on the driver's connection
	// without preparing them (SQLite, whose statements are cheap to
	// compile but costly to keep prepared in database/sql).
	RawInserts bool
	// BatchRows is the number of rows per INSERT or CopyFunc call (0: as
	// many as 500 rows and MaxParams allow).
	BatchRows int
	// ParallelIndexes builds the keys and indexes of the tables on two
	// connections, table by table, with the statistics of each table.
	ParallelIndexes bool
	// Autocommit inserts the rows without a transaction, each INSERT
	// committed on its own (Vitess: vttablet ends a transaction older
	// than its --queryserver-config-transaction-timeout, which a load of
	// some thousands of strings outlives; the load is atomic by the
	// rename of its scratch tables instead).
	Autocommit bool
}

// Timeout is the statement that bounds the time of each following
// statement of a transaction, with its arguments; Set is empty where the
// engine has none. Undo, when not empty, puts the connection back as it
// was and runs before the transaction ends. Optional: a failure of Set
// means the engine has no such setting (MySQL 8 has no
// max_statement_time; its TimedSelect hint does the work there), not an
// error.
type Timeout struct {
	Set      string
	Args     []any
	Undo     string
	Optional bool
}

// Setting is a connection setting of a load: Get reads its value, Set
// is the statement prefix that sets it ("PRAGMA synchronous = ").
type Setting struct {
	Get, Set, Value string
}

// DialectByName returns the dialect named "postgres" (or "postgresql",
// "pg"), "sqlite" (or "sqlite3"), "mysql" (or "mariadb") or "vitess".
func DialectByName(name string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "postgres", "postgresql", "pg":
		return Postgres{}, nil
	case "sqlite", "sqlite3":
		return SQLite{}, nil
	case "mysql", "mariadb":
		return MySQL{}, nil
	case "vitess":
		return Vitess{}, nil
	}
	return nil, fmt.Errorf("compile: unknown dialect %q (want postgres, sqlite, mysql or vitess)", name)
}

func quoteWith(ident string, q byte) string {
	var b strings.Builder
	b.Grow(len(ident) + 2)
	b.WriteByte(q)
	for i := 0; i < len(ident); i++ {
		if ident[i] == q {
			b.WriteByte(q)
		}
		b.WriteByte(ident[i])
	}
	b.WriteByte(q)
	return b.String()
}

// exact is x op y (or op x) with x cast to an exact numeric type wide
// enough for any sum, difference or product of two int64.
func exact(op, x, y, typ string) string {
	if y == "" {
		return "(" + op + "(CAST(" + x + " AS " + typ + ")))"
	}
	return "(CAST(" + x + " AS " + typ + ") " + op + " " + y + ")"
}

// intInRange casts the exact value d back to the int64 type typ, or NULL
// when it is out of range: clamping to one past each end and turning those
// ends into NULL reads d once (so nested arithmetic does not repeat its
// operands).
func intInRange(d, typ string) string {
	const hi, lo = "9223372036854775808", "-9223372036854775809"
	return "CAST(NULLIF(NULLIF(GREATEST(LEAST(" + d + ", " + hi + "), " + lo + "), " + hi + "), " + lo + ") AS " + typ + ")"
}

func boolWord(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// clip shortens a value for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
