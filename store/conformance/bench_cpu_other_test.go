//go:build !linux

package compile_test

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/croql/croql/compile"
)

// engineCPU reads /proc on Linux only.
func engineCPU(context.Context, compile.Dialect, *sql.Conn) (func() time.Duration, error) {
	return nil, errors.New("the engine's CPU time is read on Linux only")
}
