package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/croql/croql/compile"
)

// TimedTx runs fn in a transaction of db in dialect d, committed when fn
// returns nil and rolled back otherwise. readOnly begins it read-only where
// the engine takes the option (compile.Dialect.ReadOnlyTx), and so that
// every statement of fn reads the same snapshot: on PostgreSQL at
// REPEATABLE READ (at its default READ COMMITTED each statement reads the
// data as of its own start, so a page and its total could disagree across
// a write committed between them); MariaDB's default, REPEATABLE READ,
// and SQLite's transactions already read one snapshot. When ctx has a
// deadline, the server is told too (compile.Dialect.StatementTimeout), so
// that it stops each statement of fn on its own at the deadline even if
// the driver's cancellation does not reach it; the setting is undone
// before the transaction ends. Every statement croql runs with a deadline
// goes through it: the served lists, the loader's reads, Run.
//
// A deadline already past is context.DeadlineExceeded, before any
// statement.
func TimedTx(ctx context.Context, db *sql.DB, d compile.Dialect, readOnly bool, fn func(*sql.Tx) error) error {
	if db == nil || d == nil {
		return errors.New("store: TimedTx needs a database and a dialect")
	}
	var opts *sql.TxOptions
	if readOnly && d.ReadOnlyTx() {
		opts = &sql.TxOptions{ReadOnly: true}
		if d.Name() == "postgres" {
			// Said in the BEGIN itself: no round trip more.
			opts.Isolation = sql.LevelRepeatableRead
		}
	}
	dl, timed := ctx.Deadline()
	if timed && time.Until(dl) <= 0 {
		return context.DeadlineExceeded
	}
	// The transaction's connection stays the transaction's until the
	// end (a cancelled transaction's would go back to the pool at once),
	// so that a KILL of its statement (killAtCancel) reaches nobody else.
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer conn.Close()
	pid := pgBackendPID(conn)
	bctx, timedBegin := ctx, false
	if timed && beginsTimed(conn) {
		// The BEGIN sets the timeout itself (pgConn).
		bctx, timedBegin = context.WithValue(ctx, beginTimeoutKey{}, time.Until(dl)), true
	}
	tx, err := conn.BeginTx(bctx, opts)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	stop, err := killAtCancel(ctx, db, tx, d, pid)
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	defer stop()
	var undo string
	if timed && !timedBegin {
		if undo, err = applyTimeout(ctx, tx, d.StatementTimeout(time.Until(dl))); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	err = fn(tx)
	if undo != "" {
		if _, uerr := tx.ExecContext(context.WithoutCancel(ctx), undo); uerr != nil {
			err = errors.Join(err, fmt.Errorf("store: resetting the statement timeout: %w", uerr))
		}
	}
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// applyTimeout runs t's Set on tx and returns its Undo ("" when there is
// nothing to undo or Set failed where it is optional).
func applyTimeout(ctx context.Context, tx *sql.Tx, t compile.Timeout) (string, error) {
	if t.Set == "" {
		return "", nil
	}
	if _, err := tx.ExecContext(ctx, t.Set, t.Args...); err != nil {
		if t.Optional {
			return "", nil
		}
		return "", fmt.Errorf("store: setting the statement timeout: %w", err)
	}
	return t.Undo, nil
}

// killTimeout bounds how long a statement whose context ended is told
// to stop.
const killTimeout = 5 * time.Second

// killEvery is how often it is told again while it runs on: a cancel
// that reaches PostgreSQL between two messages of a statement (pgx's
// prepare and execute) is ignored there.
const killEvery = 100 * time.Millisecond

// killers are, by dialect name, the statement that reads a connection's
// id and the one that stops the statement that connection runs, run from
// another connection (a format for the id).
var killers = map[string][2]string{
	"postgres": {"SELECT pg_backend_pid()", "SELECT pg_cancel_backend(%d)"},
	"mysql":    {"SELECT CONNECTION_ID()", "KILL QUERY %d"},
}

// killAtCancel makes the statements of tx stop on the server when ctx
// ends, whatever the driver does (go-sql-driver closes its connection,
// which a MariaDB busy in a statement does not notice; pgx's cancel
// request can arrive between two messages and be ignored): from another
// connection of db it stops the statement of tx's connection (KILL
// QUERY, pg_cancel_backend), again every killEvery until stop is
// called. stop ends the watch and waits for it, so that nothing reaches
// a statement of a later transaction on the same connection (TimedTx
// keeps the connection until then). SQLite is interrupted in the
// process: nothing to do.
// id, when not 0, is the connection's id already known (pgBackendPID).
func killAtCancel(ctx context.Context, db *sql.DB, tx *sql.Tx, d compile.Dialect, id int64) (stop func(), err error) {
	k, ok := killers[d.Name()]
	if !ok || ctx.Done() == nil {
		return func() {}, nil
	}
	if id == 0 {
		if err := tx.QueryRowContext(ctx, k[0]).Scan(&id); err != nil {
			return nil, fmt.Errorf("store: reading the connection id: %w", err)
		}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
		defer cancel()
		tick := time.NewTicker(killEvery)
		defer tick.Stop()
		for {
			_, _ = db.ExecContext(kctx, fmt.Sprintf(k[1], id))
			select {
			case <-done:
				return
			case <-kctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}, nil
}

// pgBackendPID is the backend process id of a PostgreSQL connection of
// pgx, which pgx knows without asking the server; 0 for another driver.
func pgBackendPID(conn *sql.Conn) int64 {
	var pid int64
	_ = conn.Raw(func(dc any) error {
		if c, ok := dc.(interface{ Conn() *pgx.Conn }); ok {
			pid = int64(c.Conn().PgConn().PID())
		}
		return nil
	})
	return pid
}
