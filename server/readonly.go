package server

import (
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrReadOnly is what [Storage.WriteTx] wraps when the database refuses
// writes: a PostgreSQL hot standby or a read-only transaction (SQLSTATE
// 25006), a MySQL/MariaDB server with read_only (errors 1290 and 1792).
// Routes that write answer it with a 503 that says so, instead of a 500.
var ErrReadOnly = errors.New("server: the database is read-only (a hot standby or a read replica?): writes need the primary")

// readOnly wraps err with ErrReadOnly when the database refused a write
// because it is read-only.
func readOnly(err error) error {
	var pg *pgconn.PgError
	var my *mysql.MySQLError
	switch {
	case errors.As(err, &pg) && pg.Code == "25006",
		errors.As(err, &my) && (my.Number == 1290 || my.Number == 1792):
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return err
}
