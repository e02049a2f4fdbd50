package compile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/croql/croql/schema"
)

// Dialect is what differs between SQL engines. The compiler, the DDL
// generator and the loader ask the dialect for every engine-specific piece
// of text; nothing else in the package looks at which engine it targets.
//
// The implementations are [Postgres], [SQLite] and [MySQL] (MySQL 8 and
// MariaDB 10.5+). They are small immutable values: use them as
// compile.Postgres{}.
type Dialect interface {
	// Name is "postgres", "sqlite" or "mysql".
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
	// tables.
	Analyze(tables []string) string
	// MaxParams is the most parameters one statement may have.
	MaxParams() int
}

// DialectByName returns the dialect named "postgres" (or "postgresql",
// "pg"), "sqlite" (or "sqlite3") or "mysql" (or "mariadb").
func DialectByName(name string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "postgres", "postgresql", "pg":
		return Postgres{}, nil
	case "sqlite", "sqlite3":
		return SQLite{}, nil
	case "mysql", "mariadb":
		return MySQL{}, nil
	}
	return nil, fmt.Errorf("compile: unknown dialect %q (want postgres, sqlite or mysql)", name)
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

// Postgres is PostgreSQL (12 or later). Text columns are COLLATE "C" so
// that = and ordering compare code points; booleans are BOOLEAN; every
// parameter carries a cast.
type Postgres struct {
	// FoldCollation is the collation lower() runs under for a
	// case-insensitive contains: a UTF-8 collation whose case mapping is
	// Unicode's ("C.utf8" by default; "und-x-icu" also works where ICU is
	// built in). Under "C" lower() maps ASCII only.
	FoldCollation string
}

// Name implements Dialect.
func (Postgres) Name() string { return "postgres" }

// Quote implements Dialect.
func (Postgres) Quote(ident string) string { return quoteWith(ident, '"') }

// Placeholder implements Dialect.
func (Postgres) Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// Analyze implements Dialect: VACUUM (ANALYZE) of the tables named
// (unqualified: the load's search_path), never the whole database, whose
// other tables may be someone else's and whose vacuum would wait on their
// locks. VACUUM also sets the visibility map, so that index-only scans
// after a bulk load need not visit the heap.
func (d Postgres) Analyze(tables []string) string {
	q := make([]string, len(tables))
	for i, t := range tables {
		q[i] = d.Quote(t)
	}
	return "VACUUM (ANALYZE) " + strings.Join(q, ", ")
}

// MaxParams implements Dialect.
func (Postgres) MaxParams() int { return 65535 }

// Param implements Dialect.
func (Postgres) Param(n int, k schema.Kind) string {
	p := "$" + strconv.Itoa(n)
	switch k {
	case schema.Bool:
		return p + "::boolean"
	case schema.Float:
		return p + "::double precision"
	case schema.String, schema.Language:
		return "(" + p + "::text COLLATE \"C\")"
	default:
		return p + "::bigint"
	}
}

// Bool implements Dialect.
func (Postgres) Bool(b bool) string { return boolWord(b) }

// NullSafeEq implements Dialect.
func (Postgres) NullSafeEq(x, y string) string { return x + " IS NOT DISTINCT FROM " + y }

// KeyEq implements Dialect: plain =, which the key's index serves.
func (Postgres) KeyEq(key, ref string) string { return key + " = " + ref }

// NullSafeNe implements Dialect.
func (Postgres) NullSafeNe(x, y string) string { return x + " IS DISTINCT FROM " + y }

// Contains implements Dialect.
func (Postgres) Contains(x, sub string) string { return "strpos(" + x + ", " + sub + ") > 0" }

// Fold implements Dialect.
func (d Postgres) Fold(x string) string {
	c := d.FoldCollation
	if c == "" {
		c = "C.utf8"
	}
	return "lower((" + x + ") COLLATE " + quoteWith(c, '"') + ")"
}

// ToFloat implements Dialect.
func (Postgres) ToFloat(x string) string { return "CAST(" + x + " AS double precision)" }

// IntArith implements Dialect: exact in numeric, then back to bigint when
// in range.
func (Postgres) IntArith(op, x, y string) string {
	return intInRange(exact(op, x, y, "numeric"), "bigint")
}

// Limit implements Dialect.
func (Postgres) Limit(p string) string { return " LIMIT " + p }

// ColumnType implements Dialect.
func (Postgres) ColumnType(k schema.Kind) string {
	switch k {
	case schema.Bool:
		return "BOOLEAN"
	case schema.Float:
		return "DOUBLE PRECISION"
	case schema.String, schema.Language:
		return `TEXT COLLATE "C"`
	default:
		return "BIGINT"
	}
}

// IndexColumn implements Dialect.
func (d Postgres) IndexColumn(col string, _ schema.Kind) string { return d.Quote(col) }

// TableOptions implements Dialect.
func (Postgres) TableOptions() string { return "" }

// CheckString implements Dialect: PostgreSQL text holds neither NUL nor
// invalid UTF-8 (the server rejects such a parameter).
func (Postgres) CheckString(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: PostgreSQL text cannot hold invalid UTF-8 (%q)", ErrUnrepresentable, clip(s))
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%w: PostgreSQL text cannot hold a NUL character (%q)", ErrUnrepresentable, clip(s))
	}
	return nil
}

// SQLite is SQLite 3.35 or later (modernc.org/sqlite in this module).
// Booleans are 0 and 1, text compares with the default BINARY collation
// (code points), and a case-insensitive contains calls croql_fold, a Go
// function that must be registered on the connection (package
// compile/engine does so; see docs/sql.md).
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
func (SQLite) Analyze([]string) string { return "ANALYZE" }

// MaxParams implements Dialect.
func (SQLite) MaxParams() int { return 32766 }

// Param implements Dialect.
func (SQLite) Param(int, schema.Kind) string { return "?" }

// Bool implements Dialect.
func (SQLite) Bool(b bool) string { return boolWord(b) }

// NullSafeEq implements Dialect.
func (SQLite) NullSafeEq(x, y string) string { return x + " IS " + y }

// KeyEq implements Dialect: plain =, which the key's index serves.
func (SQLite) KeyEq(key, ref string) string { return key + " = " + ref }

// NullSafeNe implements Dialect.
func (SQLite) NullSafeNe(x, y string) string { return x + " IS NOT " + y }

// Contains implements Dialect. Both sides go as BLOBs, so that instr
// searches bytes as the evaluator does: on TEXT it steps by characters,
// and a needle with bytes that are not UTF-8 ("\x83") was then not found
// inside a character it is part of ("σ" is CF 83).
func (SQLite) Contains(x, sub string) string {
	return "instr(CAST(" + x + " AS BLOB), CAST(" + sub + " AS BLOB)) > 0"
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

// MySQL is MariaDB 10.5+ (and MySQL 8 with Collation set to
// "utf8mb4_0900_bin"). Text columns use a binary NO PAD utf8mb4 collation,
// so that = and ordering compare code points and trailing spaces count;
// string parameters are converted to that collation too, because the
// connection's default collation is case-insensitive.
type MySQL struct {
	// Collation is the binary NO PAD collation of text columns and string
	// parameters; "utf8mb4_nopad_bin" (MariaDB) by default.
	Collation string
	// FoldCollation is the collation LOWER() runs under for a
	// case-insensitive contains; "utf8mb4_uca1400_ai_ci" (MariaDB 10.10+, Unicode 14 case mapping) by default; "utf8mb4_0900_ai_ci" for MySQL 8. Its
	// result is compared under Collation.
	FoldCollation string
}

func (d MySQL) collation() string {
	if d.Collation != "" {
		return d.Collation
	}
	return "utf8mb4_nopad_bin"
}

// Name implements Dialect.
func (MySQL) Name() string { return "mysql" }

// Quote implements Dialect.
func (MySQL) Quote(ident string) string { return quoteWith(ident, '`') }

// Placeholder implements Dialect.
func (MySQL) Placeholder(int) string { return "?" }

// Analyze implements Dialect.
func (d MySQL) Analyze(tables []string) string {
	q := make([]string, len(tables))
	for i, t := range tables {
		q[i] = d.Quote(t)
	}
	return "ANALYZE TABLE " + strings.Join(q, ", ")
}

// MaxParams implements Dialect.
func (MySQL) MaxParams() int { return 65535 }

// Param implements Dialect.
func (d MySQL) Param(_ int, k schema.Kind) string {
	switch k {
	case schema.String, schema.Language:
		return "(CONVERT(? USING utf8mb4) COLLATE " + d.collation() + ")"
	}
	return "?"
}

// Bool implements Dialect.
func (MySQL) Bool(b bool) string { return boolWord(b) }

// NullSafeEq implements Dialect.
func (MySQL) NullSafeEq(x, y string) string { return x + " <=> " + y }

// KeyEq implements Dialect with <=>, the same answer as = for a key that is
// never NULL, and still served by the key's index. With =, MariaDB 10.11's
// exists_to_in rewrite turns `EXISTS (... key = (CASE ... (subquery) ...))`
// into an IN it rejects ("SUBQUERY in ROW in left expression of IN") or
// crashes on (testdata/corpus/regressions.txt).
func (MySQL) KeyEq(key, ref string) string { return key + " <=> " + ref }

// NullSafeNe implements Dialect.
func (MySQL) NullSafeNe(x, y string) string { return "NOT (" + x + " <=> " + y + ")" }

// Contains implements Dialect.
func (MySQL) Contains(x, sub string) string { return "LOCATE(" + sub + ", " + x + ") > 0" }

// Fold implements Dialect.
func (d MySQL) Fold(x string) string {
	fc := d.FoldCollation
	if fc == "" {
		fc = "utf8mb4_uca1400_ai_ci"
	}
	return "(CONVERT(LOWER((" + x + ") COLLATE " + fc + ") USING utf8mb4) COLLATE " + d.collation() + ")"
}

// ToFloat implements Dialect.
func (MySQL) ToFloat(x string) string { return "CAST(" + x + " AS DOUBLE)" }

// IntArith implements Dialect: exact in DECIMAL, then back to SIGNED when
// in range (a BIGINT operation that overflows is an error in MySQL and
// MariaDB, even on a value no row reaches).
func (MySQL) IntArith(op, x, y string) string {
	return intInRange(exact(op, x, y, "DECIMAL(65,0)"), "SIGNED")
}

// Limit implements Dialect.
func (MySQL) Limit(p string) string { return " LIMIT " + p }

// ColumnType implements Dialect.
func (d MySQL) ColumnType(k schema.Kind) string {
	switch k {
	case schema.Bool:
		return "BOOLEAN"
	case schema.Float:
		return "DOUBLE"
	case schema.String, schema.Language:
		return "LONGTEXT CHARACTER SET utf8mb4 COLLATE " + d.collation()
	default:
		return "BIGINT"
	}
}

// IndexColumn implements Dialect: text columns are indexed by a prefix
// of 191 characters (an index is still exact: the row is re-checked).
func (d MySQL) IndexColumn(col string, k schema.Kind) string {
	if k == schema.String || k == schema.Language {
		return d.Quote(col) + "(191)"
	}
	return d.Quote(col)
}

// TableOptions implements Dialect.
func (d MySQL) TableOptions() string {
	return " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=" + d.collation()
}

// CheckString implements Dialect: utf8mb4 columns and parameters hold
// valid UTF-8 only (strict mode rejects the rest).
func (MySQL) CheckString(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: MySQL utf8mb4 text cannot hold invalid UTF-8 (%q)", ErrUnrepresentable, clip(s))
	}
	return nil
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
