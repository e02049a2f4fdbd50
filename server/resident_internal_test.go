package server

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	demodata "github.com/croql/croql/demo"
)

// TestReadWithinStopsAtTheBudget: a project file is read whole within a
// budget that holds it, and the read stops with ErrOverBudget as soon as
// the objects pass a smaller one: the bad line at the end of the file is
// never reached.
func TestReadWithinStopsAtTheBudget(t *testing.T) {
	p := demodata.Generate(demodata.Options{Strings: 2000, Seed: 5})
	var file bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&file))
	whole := deepSize(reflect.ValueOf(p), map[uintptr]bool{})
	ctx := context.Background()

	got, err := readWithin(ctx, bytes.NewReader(file.Bytes()), 2*whole)
	require.NoError(t, err)
	require.Len(t, got.strings, len(p.Strings))
	require.Len(t, got.tm, len(p.TMSegments))

	bad := append(bytes.Clone(file.Bytes()), []byte(`{"kind":"string","id":"not a number"}`+"\n")...)
	_, err = readWithin(ctx, bytes.NewReader(bad), 0)
	require.Error(t, err, "without a budget the whole file is read, its bad last line too")
	require.NotErrorIs(t, err, ErrOverBudget)
	for _, max := range []int64{64 << 10, whole / 2} {
		_, err = readWithin(ctx, bytes.NewReader(bad), max)
		require.True(t, errors.Is(err, ErrOverBudget), "budget %d: %v", max, err)
	}
}

// TestBuildGivesUpWhileReading: a project whose objects do not fit the
// budget is given up while its file is read, when its file's size does
// not rule it out first (the compact objects take less than the demo's
// file, so the file's size is taken as unknown here); the database
// serves it, and /readyz counts it so.
func TestBuildGivesUpWhileReading(t *testing.T) {
	ctx := context.Background()
	p := demodata.Generate(demodata.Options{Strings: 2000, Seed: 5})
	file := filepath.Join(t.TempDir(), "p.ndjson")
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, p.WriteNDJSON(f))
	require.NoError(t, f.Close())
	st, err := LoadSQLiteFiles(ctx, t.TempDir(), file)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	proj, _ := st.Project(1)
	read, err := proj.read(ctx, 0)
	require.NoError(t, err)
	objs := read.bytes
	require.Less(t, objs, proj.SourceSize, "the compact objects take less than their file")
	proj.SourceSize = 0
	rs := newResidents(objs / 2)
	state, err := rs.build(ctx, proj)
	require.NoError(t, err)
	require.False(t, state.resident)
	require.Contains(t, state.why, "while read")
	require.Zero(t, rs.used)
	require.Nil(t, rs.snaps[proj.ID])
}
