package server

import (
	"errors"
	"fmt"
	"regexp"
)

// ErrReadOnly is what [Storage.WriteTx] wraps when the database refuses
// writes: a PostgreSQL hot standby or a read-only transaction (SQLSTATE
// 25006), a MySQL/MariaDB server with read_only (errors 1290 and 1792).
// Routes that write answer it with a 503 that says so, instead of a 500.
var ErrReadOnly = errors.New("server: the database is read-only (a hot standby or a read replica?): writes need the primary")

// sqlStater is a database error that tells its SQLSTATE (PostgreSQL's
// driver's errors do).
type sqlStater interface{ SQLState() string }

// readOnlyText is a MySQL/MariaDB error refusing a write on a read-only
// server (1290, --read-only) or in a read-only transaction (1792), as the
// driver writes its errors ("Error 1792 (25006): …").
var readOnlyText = regexp.MustCompile(`\bError (1290|1792)\b`)

// readOnly wraps err with ErrReadOnly when the database refused a write
// because it is read-only.
func readOnly(err error) error {
	if err == nil {
		return nil
	}
	var st sqlStater
	if errors.As(err, &st) && st.SQLState() == "25006" || readOnlyText.MatchString(err.Error()) {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return err
}
