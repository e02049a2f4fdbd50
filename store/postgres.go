package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/croql/croql/compile"
)

// postgresBackend is PostgreSQL through pgx's database/sql driver.
type postgresBackend struct{}

func (postgresBackend) name() string             { return "postgres" }
func (postgresBackend) dialect() compile.Dialect { return compile.Postgres{} }

func (postgresBackend) claims(dsn string) bool {
	l := strings.ToLower(strings.TrimSpace(dsn))
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://") ||
		!strings.Contains(l, "://") && !strings.HasPrefix(l, "file:") && (strings.Contains(l, "host=") || strings.Contains(l, "dbname="))
}

// postgresPool is the size of a PostgreSQL pool: as many idle connections
// as open ones, so that a burst of requests finds warm backends instead
// of forking new ones (database/sql keeps 2 idle by default).
const postgresPool = 16

func (postgresBackend) pool(dsn, schema string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres DSN: %w", err)
	}
	if schema != "" {
		if cfg.RuntimeParams == nil {
			cfg.RuntimeParams = map[string]string{}
		}
		cfg.RuntimeParams["search_path"] = schema
	}
	// When a statement's context ends, the server is sent a cancel
	// request at once (pgx's default only closes the socket, which a
	// backend busy in a statement does not notice: it ran on until its
	// statement_timeout, or to its end without one); the socket is
	// closed a second later if the statement has not stopped by then.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: time.Second}
	}
	db := sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(postgresPool)
	db.SetMaxIdleConns(postgresPool)
	return db, nil
}

func (postgresBackend) scratch() *scratchSQL {
	return &scratchSQL{
		create:          "CREATE SCHEMA %s",
		createIfMissing: "CREATE SCHEMA IF NOT EXISTS %s",
		drop:            "DROP SCHEMA IF EXISTS %s CASCADE",
		list:            "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
		lock:            "SELECT pg_try_advisory_lock(hashtextextended($1, 0))",
		unlock:          "SELECT pg_advisory_unlock(hashtextextended($1, 0))",
	}
}

// publish moves every table (with its key, indexes and statistics) from
// scratch to target in one transaction, the target schema's creation
// included: PostgreSQL's DDL is transactional.
func (b postgresBackend) publish(ctx context.Context, admin *sql.DB, scratch, target string, create bool, tables []string) error {
	d := compile.Postgres{}
	tx, err := admin.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: postgres: %w", err)
	}
	if create {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(b.scratch().createIfMissing, d.Quote(target))); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("store: postgres: creating schema %s: %w", target, err)
		}
	}
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+d.Quote(scratch)+"."+d.Quote(t)+" SET SCHEMA "+d.Quote(target)); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("store: postgres: moving %s into schema %s: %w", t, target, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: postgres: %w", err)
	}
	return nil
}

func (postgresBackend) current(ctx context.Context, admin *sql.DB) (string, error) {
	var s sql.NullString
	if err := admin.QueryRowContext(ctx, "SELECT current_schema()").Scan(&s); err != nil {
		return "", fmt.Errorf("store: postgres: %w", err)
	}
	if !s.Valid {
		return "", errors.New("store: postgres: the DSN's search_path names no existing schema: give --schema")
	}
	return s.String, nil
}

func (postgresBackend) classify(err error) (Class, string) {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return Unavailable, ce.Error()
	}
	// A pooled connection whose server went away.
	if errors.Is(err, pgconn.ErrConnClosed) {
		return Unavailable, err.Error()
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return Other, ""
	}
	switch {
	case pg.Code == "57014": // query_canceled: statement_timeout
		return Timeout, pg.Message
	// Class 54 (program limit exceeded), and the parser's own stack
	// running out on a deeply nested statement (a 42601 "memory
	// exhausted").
	case strings.HasPrefix(pg.Code, "54"), pg.Code == "42601" && strings.Contains(pg.Message, "memory exhausted"):
		return Limit, pg.Message
	// Class 08 (connection exception), 57P01-57P03 (shutting down,
	// cannot connect now), 53300 (too many connections).
	case strings.HasPrefix(pg.Code, "08"), pg.Code == "57P01", pg.Code == "57P02", pg.Code == "57P03", pg.Code == "53300":
		return Unavailable, pg.Message
	// 40001 serialization_failure (also "canceling statement due to
	// conflict with recovery" on a hot standby), 40P01 deadlock_detected.
	case pg.Code == "40001", pg.Code == "40P01":
		return Retry, pg.Message
	}
	return Other, ""
}

func (postgresBackend) loadOptions(db *DB) []LoadOption {
	c := newCopier(false)
	opts := []LoadOption{WithCopy(c.Copy), WithCopyWait(c.Wait)}
	if db.unlogged {
		opts = append(opts, WithUnlogged())
	}
	return opts
}
