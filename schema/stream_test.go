package schema_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

const head = `{"kind":"project","name":"p","sourceLanguageId":"en","targetLanguageIds":["de"]}
{"kind":"user","id":1,"login":"alice"}
{"kind":"user","id":2,"login":"bob"}
{"kind":"file","id":7,"name":"a.json","title":null,"type":"json","context":""}
`

func str(id int, extra string) string {
	return fmt.Sprintf(`{"kind":"string","id":%d,"type":"plain","text":"t%d","added":"2024-01-01 00:00:00"%s}`+"\n", id, id, extra)
}

// TestM5Reproducers holds each silent acceptance of issue 16's M5 to an
// error that names its line, in both forms where both apply.
func TestM5Reproducers(t *testing.T) {
	for name, tc := range map[string]struct {
		src    string
		strict bool
		want   string
	}{
		"duplicate string id": {head + str(1, "") + str(1, "") + str(3, ""), false, "line 6: string 1: the id is taken"},
		"duplicate user id":   {head + `{"kind":"user","id":1,"login":"carol"}` + "\n", false, "line 5: user 1: the id is taken by the user of line 2"},
		"duplicate login":     {head + `{"kind":"user","id":3,"login":"alice"}` + "\n", false, `line 5: user 3: login "alice" is taken by the user of line 2`},
		"file before its line": {head + str(1, `,"file":{"id":8}`) + `{"kind":"file","id":8,"name":"b.json","type":"json","context":""}` + "\n",
			false, "line 5: string 1: file 8 is not a file of the project"},
		"unknown member (strict)": {head + str(1, `,"isHiden":true`), true, `line 5: string: json: unknown field "isHiden"`},
		"missing added":           {head + `{"kind":"string","id":1,"type":"plain","text":"x"}` + "\n", false, "line 5: string 1: `added` is missing"},
		"repeated key (strict)":   {head + str(1, `,"text":"again"`), true, `line 5: string: member "text" is given twice`},
		"repeated top-level key (json)": {`{"strings":[{"id":1,"type":"plain","added":"2024-01-01"}],` + "\n" + `"strings":[{"id":2,"type":"plain","added":"2024-01-01"}]}`,
			false, `line 2: member "strings" is given twice`},
		"duplicate string id (json)": {"{\"strings\":[\n{\"id\":1,\"type\":\"plain\",\"added\":\"2024-01-01\"},\n{\"id\":1,\"type\":\"plain\",\"added\":\"2024-01-01\"}]}",
			false, "line 3: string 1: the id is taken by an earlier string"},
		"duplicate login (json)": {"{\"users\":[{\"id\":1,\"login\":\"a\"},\n{\"id\":2,\"login\":\"a\"}]}", false, `line 2: user 2: login "a" is taken by the user of line 1`},
		"unknown member (json, strict)": {"{\"strings\":[\n{\"id\":1,\"type\":\"plain\",\"isHiden\":true,\"added\":\"2024-01-01\"}]}",
			true, `line 2: string: json: unknown field "isHiden"`},
		"missing added (json)": {"{\"strings\":[\n{\"id\":1,\"type\":\"plain\"}]}", false, "line 2: string 1: `added` is missing"},
		"file not in files (json)": {"{\"files\":[],\"strings\":[\n{\"id\":1,\"type\":\"plain\",\"added\":\"2024-01-01\",\"file\":{\"id\":3}}]}",
			false, "line 2: string 1: file 3 is not a file of the project"},
		"head after objects (json)": {"{\"strings\":[{\"id\":1,\"type\":\"plain\",\"added\":\"2024-01-01\"}],\n\"users\":[]}",
			false, `line 2: member "users" comes after the project's objects`},
		"element lines (json)": {"{\"strings\": [\n  {\"id\":1,\"type\":\"plain\",\"added\":\"2024-01-01\"}\n  ,\n\n  {\"id\":2,\"type\":\"plain\"}]}",
			false, "line 5: string 2: `added` is missing"},
		"syntax error (json)": {"{\"name\": \"p\",\n\"strings\": [\n{\"id\":1,\"type\":\"plain\",\"added\":\"2024-01-01\"},\n{\"id\":2 \"type\"}]}",
			false, "line 4: invalid character"},
		"shared translation differs (json)": {"{\"strings\": [\n" +
			`{"id":1,"type":"plain","added":"2024-01-01","translations":[{"id":5,"stringId":1,"language":"de","text":"a"}]},` + "\n" +
			`{"id":2,"type":"plain","added":"2024-01-01","translations":[{"id":5,"stringId":1,"language":"de","text":"b"}]}]}`,
			false, "line 3: strings[1]: string 2: translation 5 differs from string 1's translation of that id"},
		"unknown plural form": {head + str(1, `,"translations":[{"id":5,"language":"de","pluralForm":"some"}]`), false, `line 5: string 1: translation 5: plural form "some"`},
		"unknown provider (strict)": {head + str(1, `,"translations":[{"id":5,"language":"de","provider":"babelfish"}]`), true,
			`line 5: string 1: translation 5: provider "babelfish"`},
		"duplicate translation id": {head + str(1, `,"translations":[{"id":5,"language":"de"}]`) + str(2, `,"translations":[{"id":5,"language":"de"}]`), false,
			"line 6: string 2: translation 5: the id is taken"},
		"head after objects": {head + str(1, "") + `{"kind":"user","id":9,"login":"z"}` + "\n", false, "line 6: a user line after the first object line"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := schema.ReadProjectWith(strings.NewReader(tc.src), schema.ReadOptions{Strict: tc.strict})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			if tc.strict { // the lenient reader accepts what only strict mode rejects
				_, err := schema.ReadProject(strings.NewReader(tc.src))
				assert.NoError(t, err)
			}
		})
	}
}

// TestValidateInMemory: Validate applies the same rules to a project
// built in memory.
func TestValidateInMemory(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 50, Seed: 3})
	require.NoError(t, p.Validate())
	dup := *p
	dup.Strings = append(dup.Strings[:len(dup.Strings):len(dup.Strings)], dup.Strings[0])
	assert.ErrorContains(t, dup.Validate(), fmt.Sprintf("strings[50]: string %d: the id is taken by strings[0]", p.Strings[0].ID))
	users := *p
	users.Users = append(users.Users[:len(users.Users):len(users.Users)], schema.UserRef{ID: 999, Login: p.Users[0].Login})
	assert.ErrorContains(t, users.Validate(), "is taken by users[0]")
}

// TestStreamOrderAndWork: objects come out in file order with many
// workers, work runs on every object, and the result equals ReadProject
// of the same data.
func TestStreamOrderAndWork(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 3000, Seed: 5})
	var buf bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&buf))
	var worked atomic.Int64
	var got []int64
	lastLine := 0
	err := schema.Stream(context.Background(), bytes.NewReader(buf.Bytes()), schema.ReadOptions{Workers: 7}, schema.Handler{
		Head: func(h *schema.Project) (func(*schema.Item) error, error) {
			assert.Equal(t, p.Users, h.Users)
			assert.Empty(t, h.Strings)
			return func(it *schema.Item) error {
				worked.Add(1)
				it.Out = append(it.Out, 'x')
				return nil
			}, nil
		},
		Emit: func(items []*schema.Item) error {
			for _, it := range items {
				require.Greater(t, it.Line, lastLine)
				lastLine = it.Line
				require.Equal(t, "x", string(it.Out))
				if s, ok := it.Value.(*schema.SourceString); ok {
					got = append(got, s.ID)
				}
			}
			return nil
		},
	})
	require.NoError(t, err)
	want := make([]int64, len(p.Strings))
	for i := range p.Strings {
		want[i] = p.Strings[i].ID
	}
	assert.Equal(t, want, got)
	assert.Equal(t, int64(len(p.Strings)+len(p.TMSegments)+len(p.GlossaryTerms)+len(p.GlossaryConcepts)), worked.Load())
}

// TestStreamSkipBad: --skip-bad reports each bad line and keeps the rest.
func TestStreamSkipBad(t *testing.T) {
	src := head + str(1, "") + "{not json\n" + str(1, "") + str(4, `,"type":"poem"`) + str(5, "")
	var skipped []string
	p, err := schema.ReadProjectWith(strings.NewReader(src), schema.ReadOptions{SkipBad: true, Skipped: func(line int, err error) {
		skipped = append(skipped, fmt.Sprintf("%d: %v", line, err))
	}})
	require.NoError(t, err)
	require.Len(t, skipped, 3, "%v", skipped)
	assert.Contains(t, skipped[0], "6: not a JSON object")
	assert.Contains(t, skipped[1], "7: string 1: the id is taken")
	assert.Contains(t, skipped[2], "8: ")
	var ids []int64
	for _, s := range p.Strings {
		ids = append(ids, s.ID)
	}
	assert.Equal(t, []int64{1, 5}, ids)
}

// TestStreamStops: an Emit error or a cancelled context stops the reader
// promptly and is returned.
func TestStreamStops(t *testing.T) {
	p := demo.Generate(demo.Options{Strings: 2000, Seed: 5})
	var buf bytes.Buffer
	require.NoError(t, p.WriteNDJSON(&buf))
	boom := errors.New("boom")
	err := schema.Stream(context.Background(), bytes.NewReader(buf.Bytes()), schema.ReadOptions{}, schema.Handler{
		Emit: func([]*schema.Item) error { return boom },
	})
	assert.ErrorIs(t, err, boom)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = schema.Stream(ctx, bytes.NewReader(buf.Bytes()), schema.ReadOptions{}, schema.Handler{
		Emit: func(items []*schema.Item) error { n += len(items); cancel(); return nil },
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, n, len(p.Strings))
}

// TestStreamStopsByItsHandler: a handler that stops the read (the
// resident snapshot's budget) ends it with its error, in either form,
// whatever chunk the reader was sending.
func TestStreamStopsByItsHandler(t *testing.T) {
	var b strings.Builder
	b.WriteString(head)
	for i := 1; i <= 3000; i++ {
		b.WriteString(str(i, ""))
	}
	p, err := schema.ReadProject(strings.NewReader(b.String()))
	require.NoError(t, err)
	var js strings.Builder
	require.NoError(t, p.WriteJSON(&js))
	stop := errors.New("over budget")
	for name, src := range map[string]string{"ndjson": b.String(), "json": js.String()} {
		for _, after := range []int{1, 256, 257, 2999} {
			n := 0
			err := schema.Stream(context.Background(), strings.NewReader(src), schema.ReadOptions{Workers: 2}, schema.Handler{
				Emit: func(objs []*schema.Item) error {
					n += len(objs)
					if n >= after {
						return stop
					}
					return nil
				},
			})
			require.ErrorIs(t, err, stop, "%s after %d", name, after)
		}
	}
}
