package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgConnector is pgx's database/sql connector whose connections can begin
// a transaction and set its statement timeout in one round trip: TimedTx
// gives the timeout in the context of BeginTx (beginTimeout), and the
// connection sends `BEGIN …; SET LOCAL statement_timeout = …` as one
// simple-protocol query instead of the BEGIN and a set_config after it.
// A read of a page is then four round trips instead of five.
type pgConnector struct{ driver.Connector }

// Connect implements driver.Connector.
func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(*stdlib.Conn)
	if !ok {
		return dc, nil
	}
	return &pgConn{pgxStdConn: sc}, nil
}

// pgxStdConn names the embedded connection of pgConn, so that its Conn
// method (the pgx connection, which Copy and pgBackendPID read) is
// promoted.
type pgxStdConn = stdlib.Conn

// pgConn is a connection of pgConnector: pgx's, with a BeginTx that
// reads the statement timeout from its context.
type pgConn struct{ *pgxStdConn }

// pgxConner is a database/sql driver connection of pgx (stdlib.Conn or
// pgConn).
type pgxConner interface{ Conn() *pgx.Conn }

// beginTimeoutKey is the context key of the statement timeout a pgConn's
// BeginTx sets in the transaction (a time.Duration).
type beginTimeoutKey struct{}

// beginsTimed reports whether conn's BeginTx takes the statement timeout
// from its context (a connection of pgConnector).
func beginsTimed(conn *sql.Conn) bool {
	ok := false
	_ = conn.Raw(func(dc any) error {
		_, ok = dc.(*pgConn)
		return nil
	})
	return ok
}

// BeginTx implements driver.ConnBeginTx: pgx's, or, when ctx holds a
// statement timeout (beginTimeoutKey), the BEGIN with its options and
// `SET LOCAL statement_timeout` in one query. The setting ends with the
// transaction.
func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	left, ok := ctx.Value(beginTimeoutKey{}).(time.Duration)
	if !ok {
		return c.pgxStdConn.BeginTx(ctx, opts)
	}
	if c.Conn().IsClosed() {
		return nil, driver.ErrBadConn
	}
	begin, err := pgBegin(opts)
	if err != nil {
		return nil, err
	}
	q := begin + "; SET LOCAL statement_timeout = " + strconv.FormatInt(max(left.Milliseconds(), 1), 10)
	tx, err := c.Conn().BeginTx(ctx, pgx.TxOptions{BeginQuery: q})
	if err != nil {
		if c.Conn().PgConn().TxStatus() != 'I' {
			// The BEGIN ran and the SET did not: the connection is in a
			// failed transaction nobody will end; database/sql closes it.
			return nil, errors.Join(err, driver.ErrBadConn)
		}
		return nil, err
	}
	return pgTx{ctx: ctx, tx: tx}, nil
}

// pgBegin is the BEGIN statement of opts.
func pgBegin(opts driver.TxOptions) (string, error) {
	var b strings.Builder
	b.WriteString("BEGIN")
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault:
	case sql.LevelReadUncommitted:
		b.WriteString(" ISOLATION LEVEL READ UNCOMMITTED")
	case sql.LevelReadCommitted:
		b.WriteString(" ISOLATION LEVEL READ COMMITTED")
	case sql.LevelRepeatableRead, sql.LevelSnapshot:
		b.WriteString(" ISOLATION LEVEL REPEATABLE READ")
	case sql.LevelSerializable:
		b.WriteString(" ISOLATION LEVEL SERIALIZABLE")
	default:
		return "", fmt.Errorf("store: postgres: unsupported isolation level %v", sql.IsolationLevel(opts.Isolation))
	}
	if opts.ReadOnly {
		b.WriteString(" READ ONLY")
	}
	return b.String(), nil
}

// pgTx is a pgx transaction as a driver.Tx (as pgx's database/sql driver
// makes it).
type pgTx struct {
	ctx context.Context
	tx  pgx.Tx
}

func (t pgTx) Commit() error   { return t.tx.Commit(t.ctx) }
func (t pgTx) Rollback() error { return t.tx.Rollback(t.ctx) }
