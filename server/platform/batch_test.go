package platform

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/internal/testdb"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// fewParams is a dialect that allows n parameters per statement.
type fewParams struct {
	compile.Dialect
	n int
}

func (d fewParams) MaxParams() int { return d.n }

// batchStrings are n strings of version v: every fifth plural, every
// seventh labelled, every third translated into uk and de (de with every
// form untranslated for every ninth: no translation, no summary), some
// approved.
func batchStrings(n int, v string) stringSlice {
	out := make(stringSlice, n)
	for i := range out {
		k := "k" + strconv.Itoa(i)
		s := postimport.String{UniqID: "u" + k, Identifier: k, Text: postimport.PlainText(v + " " + k)}
		plural := i%5 == 0
		if plural {
			s.HasPlurals, s.Text = true, postimport.PluralText(map[string]string{"one": v + " one " + k, "other": v + " " + k})
		}
		if i%7 == 0 {
			s.Labels = []string{"l" + strconv.Itoa(i%3), "all"}
		}
		if i%3 == 0 {
			s.Translations = map[string]postimport.Translation{"uk": batchTranslation(plural, v+" uk "+k, postimport.StatusTranslated)}
			de := postimport.StatusApproved
			if i%9 == 0 {
				de = postimport.StatusUntranslated
			}
			s.Translations["de"] = batchTranslation(plural, v+" de "+k, de)
		}
		out[i] = s
	}
	return out
}

func batchTranslation(plural bool, text, status string) postimport.Translation {
	if !plural {
		return postimport.Translation{Text: postimport.PlainText(text), Status: postimport.PlainStatus(status)}
	}
	return postimport.Translation{Text: postimport.PluralText(map[string]string{"one": text + " 1", "other": text}),
		Status: &postimport.Status{Plural: map[string]string{"one": status, "other": postimport.StatusTranslated}}}
}

// TestBatchSizes: the uploads write the same rows whatever the number of
// rows per INSERT, down to one row per statement and to a batch that
// binds exactly the dialect's parameter limit (18: two translation rows
// of 9 columns), over more strings than one batch of replaced
// translations (chunk): a new file, a translation upload that replaces
// translations, and a source update whose strings carry translations
// into two languages.
func TestBatchSizes(t *testing.T) {
	for _, engine := range testdb.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			want := batchUploads(t, engine, 0)
			// Each string once per language in the summary, with its own
			// ordinals; every translation linked once.
			require.Equal(t, want["languages_summary"].n, want["summaries by string and language"].n)
			require.Equal(t, want["languages_summary"].n, want["summaries by string and ordinal"].n)
			require.Equal(t, want["translations"].n, want["string_translations"].n)
			require.Positive(t, want["translations"].n)
			for _, n := range []int{18, 1} {
				got := batchUploads(t, engine, n)
				for table, rows := range want {
					require.Equal(t, rows.n, got[table].n, "%s with %d parameters per statement", table, n)
					wl, gl := strings.Split(rows.rows, "\n"), strings.Split(got[table].rows, "\n")
					for i := range wl {
						require.Equal(t, wl[i], gl[i], "%s with %d parameters per statement, row %d", table, n, i)
					}
				}
			}
		})
	}
}

// dumped are the rows of a table, one string each, in key order.
type dumped struct {
	n    int
	rows string
}

// LoadTestStorage loads data into a new storage of engine (a temporary
// SQLite file, or the server at dsn) that the test closes at its end. It
// is exported for the package's external tests only.
func LoadTestStorage(t testing.TB, engine, dsn string, data *schema.Project) *server.Storage {
	t.Helper()
	var st *server.Storage
	var err error
	if engine == "sqlite" {
		st, err = server.LoadSQLite(context.Background(), t.TempDir(), data)
	} else {
		st, err = server.LoadServer(context.Background(), engine, dsn, data)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

// batchUploads runs the uploads on a new project of engine, its writer
// allowed maxParams parameters per statement (0: the dialect's), and
// dumps the tables they write.
func batchUploads(t *testing.T, engine string, maxParams int) map[string]dumped {
	ctx := context.Background()
	data := &schema.Project{Name: "demo", SourceLanguage: "en", TargetLanguages: []string{"uk", "de"}}
	st := LoadTestStorage(t, engine, testdb.DSN(engine), data)
	proj, ok := st.Project(1)
	require.True(t, ok)
	w := newWriter(proj)
	if maxParams > 0 {
		w.d = fewParams{Dialect: w.d, n: maxParams}
	}
	now := time.Unix(1700000000, 0)
	const n = 2*chunk + 203
	fileID, existing, err := w.file(ctx, st, "app.json")
	require.NoError(t, err)
	require.False(t, existing)
	fileID, _, err = w.replaceFile(ctx, st, fileID, false, "app.json", "json", batchStrings(n, "v1"), ClearTranslationsAndApprovals, now)
	require.NoError(t, err)

	// A translation upload into uk of every other string, after every
	// string but the ninths' has a uk translation: the stored ones are
	// replaced.
	answer := func(stored []storedString) uploadStrings {
		var out stringSlice
		for i, ss := range stored {
			if i%2 != 0 {
				continue
			}
			s := postimport.String{UniqID: ss.uniqID, Identifier: ss.Identifier}
			s.Translations = map[string]postimport.Translation{"uk": batchTranslation(ss.plural(), "tr "+ss.Identifier, postimport.StatusTranslated)}
			out = append(out, s)
		}
		return out
	}
	stored, err := w.strings(ctx, st, fileID)
	require.NoError(t, err)
	require.Len(t, stored, n)
	count, err := w.storeTranslations(ctx, st, fileID, "app.json", answer, "uk", now)
	require.NoError(t, err)
	require.Equal(t, (n+1)/2, count)

	// A source update: the same strings but the last, the texts of the
	// first half changed (their translations kept), translations into uk
	// and de again.
	v2 := batchStrings(n-1, "v1")
	for i := range (n - 1) / 2 {
		v2[i].Text = postimport.PlainText("v2 " + v2[i].Identifier)
		v2[i].HasPlurals = false
		if tr, ok := v2[i].Translations["uk"]; ok {
			v2[i].Translations["uk"] = batchTranslation(false, "v2 "+tr.Text.Plain, postimport.StatusApproved)
			delete(v2[i].Translations, "de")
		}
	}
	_, up, err := w.replaceFile(ctx, st, fileID, true, "app.json", "json", v2, KeepTranslations, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, &FileUpdate{Option: KeepTranslations, Updated: (n - 1) / 2, Unchanged: n - 1 - (n-1)/2, Deleted: 1}, up)

	out := map[string]dumped{}
	require.NoError(t, st.ReadTx(ctx, proj, func(tx *sql.Tx) error {
		if engine == "vitess" {
			for name, q := range vitessPlacement {
				d, err := dump(ctx, tx, q)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				out[name] = d
			}
		}
		for name, q := range map[string]string{
			"strings":                          "SELECT * FROM strings ORDER BY id",
			"translations":                     "SELECT * FROM translations ORDER BY id",
			"string_translations":              "SELECT * FROM string_translations ORDER BY string_id, translation_id",
			"languages_summary":                "SELECT * FROM languages_summary ORDER BY string_id, ordinal",
			"labels":                           "SELECT * FROM labels ORDER BY id",
			"string_labels":                    "SELECT * FROM string_labels ORDER BY string_id, label_id",
			"summaries by string and language": "SELECT DISTINCT string_id, language FROM languages_summary ORDER BY 1, 2",
			"summaries by string and ordinal":  "SELECT DISTINCT string_id, ordinal FROM languages_summary ORDER BY 1, 2",
		} {
			d, err := dump(ctx, tx, q)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			out[name] = d
		}
		return nil
	}))
	return out
}

func dump(ctx context.Context, tx *sql.Tx, q string) (dumped, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return dumped{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return dumped{}, err
	}
	var d dumped
	var sb strings.Builder
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return dumped{}, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			fmt.Fprintf(&sb, "%s=%v ", cols[i], v)
		}
		sb.WriteByte('\n')
		d.n++
	}
	d.rows = sb.String()
	return d, rows.Err()
}
