package compile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/croql/croql/schema"
)

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
func (d Postgres) Analyze(table string) string {
	return "VACUUM (ANALYZE) " + d.Quote(table)
}

// ReadOnlyTx implements Dialect.
func (Postgres) ReadOnlyTx() bool { return true }

// StatementTimeout implements Dialect: statement_timeout for the
// transaction (set_config(..., true) is SET LOCAL with a bound value).
func (Postgres) StatementTimeout(left time.Duration) Timeout {
	return Timeout{Set: "SELECT set_config('statement_timeout', $1, true)", Args: []any{strconv.FormatInt(max(left.Milliseconds(), 1), 10)}}
}

// TimedSelect implements Dialect: the transaction's timeout is enough.
func (Postgres) TimedSelect(query string, _ time.Duration) string { return query }

// BulkLoad implements Dialect: rows through the CopyFunc of WithCopy
// (package store's binary COPY), keys after the rows, keys,
// indexes and VACUUM (ANALYZE) table by table on two connections.
// VACUUM cannot run in a transaction: atomic loads go through a scratch
// schema (store).
func (Postgres) BulkLoad() BulkLoad {
	// 1,000 rows per CopyFunc call: no parameter limit, and package
	// engine's copier gathers the batches of a table into larger COPY
	// statements, so a batch need not be large (5,000 rows took 40 MB
	// more peak memory).
	return BulkLoad{KeysAfterRows: true, UnloggedTable: "CREATE UNLOGGED TABLE ", ParallelIndexes: true, BatchRows: 1000}
}

// SemiJoinIn implements Dialect: PostgreSQL 15 plans EXISTS and IN as the
// same merge semi-join, and NOT EXISTS as a hash anti join, where NOT IN
// is a hashed subplan (184 ms against 110 for the seed pattern
// seed-no-approved-or-voted-in-language over 100,000 strings).
func (Postgres) SemiJoinIn() bool { return false }

// GuardOnKey implements Dialect: PostgreSQL evaluates an uncorrelated EXISTS
// once, as an InitPlan, and skips the scan when it is false (a one-time
// filter).
func (Postgres) GuardOnKey() bool { return false }

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

// ByteLength implements Dialect.
func (Postgres) ByteLength(x string) string { return "octet_length(" + x + ")" }
