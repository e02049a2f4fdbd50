package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/croql/croql/compile"
)

// mysqlBackend is MariaDB (and MySQL) through go-sql-driver/mysql.
type mysqlBackend struct{}

func (mysqlBackend) name() string             { return "mysql" }
func (mysqlBackend) dialect() compile.Dialect { return compile.MySQL{} }

func (mysqlBackend) claims(dsn string) bool {
	l := strings.ToLower(strings.TrimSpace(dsn))
	return strings.HasPrefix(l, "mysql://") || strings.HasPrefix(l, "mariadb://") ||
		!strings.Contains(l, "://") && (strings.Contains(l, "@tcp(") || strings.Contains(l, "@unix("))
}

// parseMySQL reads a MySQL DSN in any of its forms: the URL
// mysql://user:password@host:port/db?param=value (port 3306 when left
// out), or go-sql-driver's native form, with or without mysql:// before
// it.
func parseMySQL(dsn string) (*mysql.Config, error) {
	dsn = strings.TrimSpace(dsn)
	rest := dsn
	for _, p := range []string{"mysql://", "mariadb://"} {
		if len(rest) >= len(p) && strings.EqualFold(rest[:len(p)], p) {
			rest = rest[len(p):]
			break
		}
	}
	if rest == dsn || strings.Contains(rest, "@tcp(") || strings.Contains(rest, "@unix(") || strings.HasPrefix(rest, "tcp(") || strings.HasPrefix(rest, "unix(") {
		cfg, err := mysql.ParseDSN(rest)
		if err != nil {
			return nil, fmt.Errorf("store: mysql DSN: %w", err)
		}
		return cfg, nil
	}
	u, err := url.Parse("mysql://" + rest)
	if err != nil {
		return nil, fmt.Errorf("store: mysql DSN: %w (write mysql://user:password@host:3306/db)", err)
	}
	if u.Host == "" {
		return nil, errors.New("store: mysql DSN: no host (write mysql://user:password@host:3306/db)")
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if q := u.Query(); len(q) > 0 {
		// The driver's own parameters, as its native form takes them.
		native, err := mysql.ParseDSN("/?" + q.Encode())
		if err != nil {
			return nil, fmt.Errorf("store: mysql DSN: %w", err)
		}
		native.User, native.Passwd, native.Net, native.Addr, native.DBName = cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName
		cfg = native
	}
	return cfg, nil
}

// mysqlPool is the size of a MySQL pool, idle connections included.
const mysqlPool = 16

func (mysqlBackend) pool(dsn, schema string) (*sql.DB, error) {
	cfg, err := parseMySQL(dsn)
	if err != nil {
		return nil, err
	}
	return mysqlOpen(cfg, schema)
}

// mysqlOpen is the pool of croql's connections to the server of cfg,
// in database schema when not empty.
func mysqlOpen(cfg *mysql.Config, schema string) (*sql.DB, error) {
	// utf8mb4 on the connection: string parameters are converted to the
	// columns' utf8mb4 collation.
	cfg.Collation = "utf8mb4_general_ci"
	if schema != "" {
		cfg.DBName = schema
	}
	con, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("store: mysql: %w", err)
	}
	db := sql.OpenDB(con)
	db.SetMaxOpenConns(mysqlPool)
	db.SetMaxIdleConns(mysqlPool)
	return db, nil
}

func (mysqlBackend) scratch() *scratchSQL {
	return &scratchSQL{
		create:          "CREATE DATABASE %s CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
		createIfMissing: "CREATE DATABASE IF NOT EXISTS %s CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
		drop:            "DROP DATABASE IF EXISTS %s",
		list:            "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?",
		lock:            "SELECT GET_LOCK(?, 0) = 1",
		unlock:          "SELECT RELEASE_LOCK(?)",
	}
}

// publish moves the tables with one RENAME TABLE, which MySQL and MariaDB
// run atomically: all move or none does. A missing target database is
// created just before (DDL commits on its own in MySQL).
func (b mysqlBackend) publish(ctx context.Context, admin *sql.DB, scratch, target string, create bool, tables []string) error {
	d := compile.MySQL{}
	if create {
		if _, err := admin.ExecContext(ctx, fmt.Sprintf(b.scratch().createIfMissing, d.Quote(target))); err != nil {
			return fmt.Errorf("store: mysql: creating database %s: %w", target, err)
		}
	}
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = d.Quote(scratch) + "." + d.Quote(t) + " TO " + d.Quote(target) + "." + d.Quote(t)
	}
	if _, err := admin.ExecContext(ctx, "RENAME TABLE "+strings.Join(parts, ", ")); err != nil {
		return fmt.Errorf("store: mysql: moving the tables into database %s: %w", target, err)
	}
	return nil
}

func (mysqlBackend) current(ctx context.Context, admin *sql.DB) (string, error) {
	var s sql.NullString
	if err := admin.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&s); err != nil {
		return "", fmt.Errorf("store: mysql: %w", err)
	}
	if !s.Valid || s.String == "" {
		return "", errors.New("store: mysql: the DSN names no database: add /db or give --schema")
	}
	return s.String, nil
}

func (mysqlBackend) classify(err error) (Class, string) {
	if errors.Is(err, mysql.ErrInvalidConn) {
		return Unavailable, err.Error()
	}
	var my *mysql.MySQLError
	if !errors.As(err, &my) {
		return Other, ""
	}
	switch my.Number {
	case 1969, 3024: // MariaDB max_statement_time, MySQL MAX_EXECUTION_TIME
		return Timeout, my.Message
	case 1436, 1390, 1104: // thread stack, placeholders, too big a select
		return Limit, my.Message
	case 1064:
		// The parser's stack running out on a deep statement.
		if strings.Contains(my.Message, "memory exhausted") {
			return Limit, my.Message
		}
	case 1040, 1053, 1077, 1152, 1129, 1130: // connections, shutdown, blocked host
		return Unavailable, my.Message
	case 1213: // deadlock found when trying to get lock
		return Retry, my.Message
	}
	return Other, ""
}

func (mysqlBackend) loadOptions(*DB) []LoadOption { return nil }
