package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	demodata "github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
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
	st := fileStorage(t, demodata.Generate(demodata.Options{Strings: 2000, Seed: 5}))
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

// TestBuildRefusesWideValues: a project with a value that a snapshot's
// 32-bit field cannot hold (a user id past 2^32, a time before 1970, a
// translation id more than 2^31 from the first) is not held: the database
// serves it, and the reason names the value. The same project with the
// values in range is held.
func TestBuildRefusesWideValues(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		edit func(p *schema.Project)
		want string
	}{
		{"in range", func(*schema.Project) {}, ""},
		{"vote user", func(p *schema.Project) { firstVote(p).User = 1 << 33 }, "user id 8589934592"},
		{"string added", func(p *schema.Project) { p.Strings[3].Added = -86400 }, "time -86400"},
		{"translation id", func(p *schema.Project) { firstTranslation(p).ID = 1 << 40 }, "translation id"},
		{"record usage", func(p *schema.Project) { p.TMSegments[0].Records[0].UsageCount = -1 }, "usage count -1"},
	} {
		p := demodata.Generate(demodata.Options{Strings: 200, Seed: 5})
		c.edit(p)
		st := fileStorage(t, p)
		proj, _ := st.Project(1)
		rs := newResidents(1 << 30)
		state, err := rs.build(ctx, proj)
		require.NoError(t, err, c.name)
		if c.want == "" {
			require.True(t, state.resident, c.name)
		} else {
			require.False(t, state.resident, c.name)
			require.Contains(t, state.why, c.want, c.name)
			require.Contains(t, state.why, "32-bit", c.name)
		}
	}
}

// fileStorage writes p as an NDJSON file and serves it from SQLite as
// --data does (the file the snapshot is read from), closed at the test's
// end.
func fileStorage(t *testing.T, p *schema.Project) *Storage {
	t.Helper()
	file := filepath.Join(t.TempDir(), "p.ndjson")
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, p.WriteNDJSON(f))
	require.NoError(t, f.Close())
	st, err := LoadSQLiteFiles(context.Background(), t.TempDir(), file)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

func firstTranslation(p *schema.Project) *schema.Translation {
	for i := range p.Strings {
		if len(p.Strings[i].Translations) > 0 {
			return &p.Strings[i].Translations[0]
		}
	}
	return nil
}

func firstVote(p *schema.Project) *schema.Vote {
	for i := range p.Strings {
		for j := range p.Strings[i].Translations {
			if t := &p.Strings[i].Translations[j]; len(t.Votes) > 0 {
				return &t.Votes[0]
			}
		}
	}
	return nil
}

// TestCompactorKeepsRepeatedTextsOnce: a text that repeats is held once
// (the same bytes), a long one is not looked up, and the dictionary stops
// taking new texts when they do not repeat: after dictCheck different
// texts it is full, and a new text is copied again each time.
func TestCompactorKeepsRepeatedTextsOnce(t *testing.T) {
	c := newCompactor()
	a, b := c.kept(strings.Clone("Welcome back")), c.kept(strings.Clone("Welcome back"))
	require.Equal(t, "Welcome back", b)
	require.Same(t, unsafe.StringData(a), unsafe.StringData(b))
	long := strings.Repeat("x", dictText+1)
	require.NotSame(t, unsafe.StringData(c.kept(long)), unsafe.StringData(c.kept(long)))

	c = newCompactor()
	for i := range dictCheck {
		c.kept(fmt.Sprintf("text %d", i))
	}
	require.True(t, c.dictFull, "texts that never repeat fill the dictionary")
	x, y := c.kept("new text"), c.kept("new text")
	require.NotSame(t, unsafe.StringData(x), unsafe.StringData(y))
	require.Same(t, unsafe.StringData(c.kept("text 7")), unsafe.StringData(c.kept("text 7")), "the texts it has are still shared")

	c = newCompactor()
	for i := range dictCheck {
		c.kept(fmt.Sprintf("text %d", i))
		c.kept(fmt.Sprintf("text %d", i))
	}
	require.False(t, c.dictFull, "texts that repeat keep it open")
}
