package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/croql/croql/compile"
)

// TimedTx runs fn in a transaction of db in dialect d, committed when fn
// returns nil and rolled back otherwise. readOnly begins it read-only where
// the engine takes the option (compile.Dialect.ReadOnlyTx). When ctx has a
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
	}
	dl, timed := ctx.Deadline()
	if timed && time.Until(dl) <= 0 {
		return context.DeadlineExceeded
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	var undo string
	if timed {
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
