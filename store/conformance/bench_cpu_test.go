//go:build linux

package compile_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/croql/croql/compile"
)

// engineCPU returns a clock of the CPU time the engine spends on the
// statements of conn, or an error where it cannot be read. For SQLite,
// which runs in this process, it is the process's user + system time;
// for PostgreSQL the run time of conn's backend process, and for
// MySQL/MariaDB (one thread per connection) of conn's server thread, both
// from /proc/<pid>/schedstat in nanoseconds, so the server must run on
// this machine. Unlike the wall time, it does not count the time the
// engine waits for a core, so on a shared machine it moves far less with
// the load.
func engineCPU(ctx context.Context, d compile.Dialect, conn *sql.Conn) (func() time.Duration, error) {
	switch d.(type) {
	case compile.SQLite:
		return func() time.Duration {
			var ru syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
				return 0
			}
			return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}, nil
	case compile.Postgres:
		var pid int
		if err := conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			return nil, fmt.Errorf("backend pid: %w", err)
		}
		return schedClock(fmt.Sprintf("/proc/%d/schedstat", pid))
	case compile.MySQL:
		return mysqlThreadClock(ctx, conn)
	}
	return nil, fmt.Errorf("no CPU clock for %s", d.Name())
}

// schedClock reads the run time, in nanoseconds, of the task whose
// schedstat file is path.
func schedClock(path string) (func() time.Duration, error) {
	read := func() (time.Duration, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, fmt.Errorf("%s: empty", path)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		return time.Duration(ns), err
	}
	if _, err := read(); err != nil {
		return nil, err
	}
	return func() time.Duration { t, _ := read(); return t }, nil
}

// mysqlThreadClock finds the server thread of conn (MariaDB runs each
// connection on a thread of its own) as the one whose run time grows the
// most while conn computes a busy loop, and returns its clock.
func mysqlThreadClock(ctx context.Context, conn *sql.Conn) (func() time.Duration, error) {
	var pidFile string
	if err := conn.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&pidFile); err != nil {
		return nil, fmt.Errorf("pid file: %w", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return nil, err
	}
	pid := strings.TrimSpace(string(b))
	snap := func() map[string]time.Duration {
		out := map[string]time.Duration{}
		paths, _ := filepath.Glob("/proc/" + pid + "/task/*/schedstat")
		for _, p := range paths {
			if c, err := schedClock(p); err == nil {
				out[p] = c()
			}
		}
		return out
	}
	before := snap()
	if len(before) == 0 {
		return nil, fmt.Errorf("no threads of process %s readable", pid)
	}
	var x int
	if err := conn.QueryRowContext(ctx, "SELECT BENCHMARK(2000000, MD5('croql'))").Scan(&x); err != nil {
		return nil, fmt.Errorf("busy loop: %w", err)
	}
	best, grew := "", time.Duration(0)
	for p, t := range snap() {
		if d := t - before[p]; d > grew {
			best, grew = p, d
		}
	}
	if best == "" {
		return nil, fmt.Errorf("no thread of process %s ran", pid)
	}
	return schedClock(best)
}
