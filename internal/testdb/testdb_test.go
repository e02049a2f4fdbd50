package testdb

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFromEnvironment(t *testing.T) {
	t.Setenv(EnvPostgres, "postgres://x")
	t.Setenv(EnvMySQL, "")
	t.Setenv(EnvRequire, "mysql")
	assert.Equal(t, "postgres://x", DSN("postgres"))
	assert.Equal(t, "", DSN("mysql"))
	assert.Equal(t, "", DSN("sqlite"))
	assert.Equal(t, EnvMySQL, Env("mysql"))
	assert.True(t, Required("mysql"))
	assert.False(t, Required("postgres"))

	t.Setenv(EnvRequire, "")
	assert.Equal(t, []string{"sqlite", "postgres"}, Engines(t), "mysql has no DSN and is not required: left out")
	t.Setenv(EnvMySQL, "root@tcp(x)/y")
	assert.Equal(t, []string{"postgres", "mysql"}, Servers(t))
}
