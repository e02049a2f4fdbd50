package store

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// scratchChildEnv makes the test binary the child of
// TestKilledLoadsScratchDropped: it opens a scratch schema on the engine
// the variable names, prints its name and loads into it until killed.
const scratchChildEnv = "CROQL_TEST_SCRATCH_CHILD"

// TestKilledLoadsScratchDropped: a process killed (SIGKILL) while it
// loads into its scratch schema leaves the schema behind; the next Open
// drops it at once, because no session holds its lock any more, however
// young it is. A live run's scratch schema stays.
func TestKilledLoadsScratchDropped(t *testing.T) {
	if eng := os.Getenv(scratchChildEnv); eng != "" {
		scratchChild(t, eng)
		return
	}
	for _, eng := range []string{"postgres", "mysql"} {
		t.Run(eng, func(t *testing.T) {
			dsn := serverDSN(t, eng)
			ctx := context.Background()
			live, err := Open(ctx, eng, dsn)
			require.NoError(t, err)
			defer func() { assert.NoError(t, live.Close()) }()

			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledLoadsScratchDropped$")
			cmd.Env = append(os.Environ(), scratchChildEnv+"="+eng)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			dead := ""
			for sc := bufio.NewScanner(out); sc.Scan(); {
				if name, ok := strings.CutPrefix(sc.Text(), "SCRATCH "); ok {
					dead = name
					break
				}
			}
			require.NoError(t, cmd.Process.Kill())
			_ = cmd.Wait()
			require.NotEmpty(t, dead, "the child printed no scratch schema")

			b, err := backendByName(eng)
			require.NoError(t, err)
			admin, err := b.pool(dsn, "")
			require.NoError(t, err)
			defer admin.Close()
			d := b.dialect()
			defer func() { _, _ = admin.Exec(fmt.Sprintf(b.scratch().drop, d.Quote(dead))) }()
			exists := func(name string) bool {
				var n string
				err := admin.QueryRowContext(ctx, b.scratch().list, name).Scan(&n)
				if err == sql.ErrNoRows {
					return false
				}
				require.NoError(t, err)
				return true
			}
			require.True(t, exists(dead), "the killed run's schema is there before the next Open")
			// The server ends the killed process's sessions when it sees
			// their sockets closed: wait for that, not for a time.
			waitSessionsGone(t, admin, eng, dead)

			next, err := Open(ctx, eng, dsn)
			require.NoError(t, err)
			require.NoError(t, next.Close())
			assert.False(t, exists(dead), "the scratch schema of a killed load must be dropped by the next Open")
			assert.True(t, exists(live.Schema), "a live run's scratch schema stays")
		})
	}
}

// waitSessionsGone waits (at most a minute) until no session holds the
// lock of the scratch schema name: the server ends the killed child's
// sessions once it sees their sockets closed.
func waitSessionsGone(t *testing.T, admin *sql.DB, eng, name string) {
	t.Helper()
	b, err := backendByName(eng)
	require.NoError(t, err)
	sc := b.scratch()
	ctx := context.Background()
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(20 * time.Millisecond) {
		conn, err := admin.Conn(ctx)
		require.NoError(t, err)
		got, err := tryLock(ctx, conn, sc, name)
		require.NoError(t, err)
		if got {
			_, err = conn.ExecContext(ctx, sc.unlock, name)
			require.NoError(t, err)
		}
		conn.Close()
		if got {
			return
		}
	}
	t.Fatalf("the killed child's lock of %s was not given back within a minute", name)
}

// scratchChild opens a scratch schema on eng, prints its name, and loads
// projects into it until the parent kills the process.
func scratchChild(t *testing.T, eng string) {
	dsn := serverDSN(t, eng)
	ctx := context.Background()
	db, err := Open(ctx, eng, dsn)
	require.NoError(t, err)
	fmt.Printf("SCRATCH %s\n", db.Schema)
	m := mapping.Default(schema.New())
	for {
		_ = Load(ctx, db, m, demo.Generate(demo.Options{Strings: 2000, Seed: 1}))
	}
}
