// Package testdb says which SQL engines a test runs on. SQLite always; the
// servers, PostgreSQL and MariaDB, when their DSN is set in the environment
// (CROQL_POSTGRES_DSN, CROQL_MYSQL_DSN). A sharded Vitess keyspace
// (CROQL_VITESS_DSN; .ci/vitess.sh starts a test cluster) is not among
// the servers every engine test runs on, since Vitess refuses some of the
// compiled SQL: its tests ask for it by name (Need). A server that CROQL_REQUIRE_DB lists
// (comma-separated, as .ci/run sets it: postgres,mysql) but whose DSN is not
// set fails the test, so that CI never skips a database silently; on a
// developer's machine without one, the test says how to enable it and goes on
// without it (or is skipped, for a test about that server alone).
//
// Every test package of the repository that reaches a database goes through
// this one package; it imports no driver, so the root module stays free of
// them.
package testdb

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The environment variables.
const (
	EnvPostgres = "CROQL_POSTGRES_DSN"
	EnvMySQL    = "CROQL_MYSQL_DSN"
	EnvVitess   = "CROQL_VITESS_DSN"
	EnvRequire  = "CROQL_REQUIRE_DB"
)

// Servers are the server engines, in the order tests run them.
var servers = [...]struct{ name, env string }{{"postgres", EnvPostgres}, {"mysql", EnvMySQL}}

// Env is the environment variable holding engine's DSN ("" for an engine
// that needs none, such as sqlite).
func Env(engine string) string {
	for _, s := range servers {
		if s.name == engine {
			return s.env
		}
	}
	if engine == "vitess" {
		return EnvVitess
	}
	return ""
}

// DSN is engine's DSN from the environment, or "".
func DSN(engine string) string {
	if e := Env(engine); e != "" {
		return os.Getenv(e)
	}
	return ""
}

// Required reports whether CROQL_REQUIRE_DB lists engine.
func Required(engine string) bool {
	return slices.Contains(strings.Split(os.Getenv(EnvRequire), ","), engine)
}

// ExampleDSN is a DSN for engine on a default local install, for messages.
func ExampleDSN(engine string) string {
	switch engine {
	case "postgres":
		return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	case "mysql":
		return "root@tcp(127.0.0.1:3306)/test"
	case "vitess":
		return "vitess://root@127.0.0.1:33303/croql"
	}
	return ""
}

// Servers returns the server engines whose DSN is set. One that
// CROQL_REQUIRE_DB lists without its DSN fails t; the others missing are
// logged with the variable to set.
func Servers(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, s := range servers {
		if os.Getenv(s.env) != "" {
			out = append(out, s.name)
			continue
		}
		if Required(s.name) {
			t.Fatalf("%s is required (%s=%s) but %s is not set", s.name, EnvRequire, os.Getenv(EnvRequire), s.env)
		}
		t.Logf("%s not tested: set %s (e.g. %s)", s.name, s.env, ExampleDSN(s.name))
	}
	return out
}

// Engines returns "sqlite" followed by Servers(t).
func Engines(t testing.TB) []string {
	t.Helper()
	return append([]string{"sqlite"}, Servers(t)...)
}

// Need returns engine's DSN for a test about that server alone: without
// the DSN the test is skipped, or fails when CROQL_REQUIRE_DB lists engine.
func Need(t testing.TB, engine string) string {
	t.Helper()
	if dsn := DSN(engine); dsn != "" {
		return dsn
	}
	if Required(engine) {
		t.Fatalf("%s is required (%s=%s) but %s is not set", engine, EnvRequire, os.Getenv(EnvRequire), Env(engine))
	}
	t.Skipf("%s not tested: set %s (e.g. %s)", engine, Env(engine), ExampleDSN(engine))
	return ""
}
