package platform

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// writer writes imported strings into a project's reference schema. Table
// and column names come from the default mapping (compile.DefaultMapping)
// and are quoted by the project's dialect; every value is a bound
// parameter.
type writer struct {
	proj *server.Project
	d    compile.Dialect
	m    *compile.Mapping
}

func newWriter(proj *server.Project) *writer {
	return &writer{proj: proj, d: proj.Dialect(), m: compile.DefaultMapping(schema.New())}
}

// tbl returns the table of a mapping object and a column getter that
// fails loudly on a field the mapping lacks.
func (w *writer) tbl(obj string) (*compile.Table, error) {
	t, ok := w.m.Tables[obj]
	if !ok || t == nil {
		return nil, fmt.Errorf("platform: the mapping has no table for %s", obj)
	}
	return t, nil
}

func (w *writer) col(t *compile.Table, field string) (string, error) {
	c, ok := t.Columns[field]
	if !ok || c == "" {
		return "", fmt.Errorf("platform: the mapping has no column for %q of table %s", field, t.Name)
	}
	return w.d.Quote(c), nil
}

func (w *writer) ph(n int) string { return w.d.Placeholder(n) }

// file returns the id of the file named name, or the id a new file will
// get, and whether it exists.
func (w *writer) file(ctx context.Context, st *server.Storage, name string) (id int64, existing bool, err error) {
	ft, err := w.tbl("file")
	if err != nil {
		return 0, false, err
	}
	nameCol, err := w.col(ft, "name")
	if err != nil {
		return 0, false, err
	}
	key := w.d.Quote(ft.Key)
	err = st.ReadTx(ctx, w.proj, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, "SELECT "+key+" FROM "+w.d.Quote(ft.Name)+" WHERE "+nameCol+" = "+w.ph(1)+" ORDER BY "+key, name).Scan(&id)
		if err == nil {
			existing = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT COALESCE(MAX("+key+"), 0) + 1 FROM "+w.d.Quote(ft.Name)).Scan(&id)
	})
	if err != nil {
		return 0, false, fmt.Errorf("platform: reading the files: %w", err)
	}
	return id, existing, nil
}

// storedString is a source string of a file as the database holds it.
type storedString struct {
	id         int64
	uniqID     string
	identifier string
	context    string
	text       string
	plural     bool
	maxLength  *int
}

// strings reads the strings of a file in id order.
func (w *writer) strings(ctx context.Context, st *server.Storage, fileID int64) ([]storedString, error) {
	t, err := w.tbl("source string")
	if err != nil {
		return nil, err
	}
	cols := []string{w.d.Quote(t.Key)}
	for _, f := range []string{"identifier", "context", "text", "type is plural", "max length", "file"} {
		c, err := w.col(t, f)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	ft, err := w.tbl("file")
	if err != nil {
		return nil, err
	}
	var fileName string
	var out []storedString
	err = st.ReadTx(ctx, w.proj, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "SELECT "+w.d.Quote(ft.Columns["name"])+" FROM "+w.d.Quote(ft.Name)+" WHERE "+w.d.Quote(ft.Key)+" = "+w.ph(1), fileID).Scan(&fileName); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT "+strings.Join(cols[:6], ", ")+" FROM "+w.d.Quote(t.Name)+" WHERE "+cols[6]+" = "+w.ph(1)+" ORDER BY "+cols[0], fileID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s storedString
			var typ string
			var ml sql.NullInt64
			if err := rows.Scan(&s.id, &s.identifier, &s.context, &s.text, &typ, &ml); err != nil {
				return err
			}
			s.plural = typ == "plural"
			if ml.Valid {
				n := int(ml.Int64)
				s.maxLength = &n
			}
			s.uniqID = uniqID(fileName, s.identifier, len(out)+1)
			out = append(out, s)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("platform: reading the strings: %w", err)
	}
	return out, nil
}

// tables are the names the writes need, resolved once per write.
type tables struct {
	str, file, tr, label, summary *compile.Table
	strTr, strLabel               *compile.Child
	summaryFK                     string
	dependents                    []string // element tables keyed by string id
	votesApprovals                []string // element tables keyed by translation id
}

func (w *writer) tables() (*tables, error) {
	var t tables
	var err error
	for _, x := range []struct {
		dst **compile.Table
		obj string
	}{{&t.str, "source string"}, {&t.file, "file"}, {&t.tr, "translation"}, {&t.label, "label"}, {&t.summary, "languages summary element"}} {
		if *x.dst, err = w.tbl(x.obj); err != nil {
			return nil, err
		}
	}
	t.strTr, t.strLabel = t.str.Children["translations"], t.str.Children["labels"]
	sum := t.str.Children["languages summary"]
	if t.strTr == nil || t.strTr.Through == "" || t.strLabel == nil || t.strLabel.Through == "" || sum == nil || sum.FK == "" {
		return nil, errors.New("platform: the mapping does not keep translations and labels in join tables and the languages summary by string")
	}
	t.summaryFK = sum.FK
	for name, c := range t.str.Children {
		if c.FK != "" {
			if tt, ok := w.tableNamed(t.str, name); ok {
				t.dependents = append(t.dependents, w.d.Quote(tt)+" WHERE "+w.d.Quote(c.FK))
			}
		}
	}
	sort.Strings(t.dependents)
	for name, c := range t.tr.Children {
		if c.FK != "" {
			if tt, ok := w.tableNamed(t.tr, name); ok {
				t.votesApprovals = append(t.votesApprovals, w.d.Quote(tt)+" WHERE "+w.d.Quote(c.FK))
			}
		}
	}
	sort.Strings(t.votesApprovals)
	return &t, nil
}

// tableNamed finds the element table of a collection field of parent.
func (w *writer) tableNamed(parent *compile.Table, field string) (string, bool) {
	for _, obj := range w.m.Catalog().Objects {
		if t, err := w.m.Table(obj); err != nil || t != parent {
			continue
		}
		f, ok := obj.Field(field)
		if !ok || f.Type.Kind != schema.Collection || f.Type.Obj == nil {
			continue
		}
		et, err := w.m.Table(f.Type.Obj)
		if err != nil {
			return "", false
		}
		return et.Name, true
	}
	return "", false
}

// replaceFile stores the strings of a source upload: the file's row is
// created or kept, its previous strings (with their translations, labels,
// summaries, comments, screenshots) are removed, the new ones inserted —
// in one transaction.
func (w *writer) replaceFile(ctx context.Context, st *server.Storage, fileID int64, existing bool, name, typ string, strs []postimport.String, now time.Time) (int64, error) {
	t, err := w.tables()
	if err != nil {
		return 0, err
	}
	err = st.WriteTx(ctx, w.proj, func(tx *sql.Tx) error {
		q := func(query string, args ...any) error {
			_, err := tx.ExecContext(ctx, query, args...)
			if err != nil {
				return fmt.Errorf("%w\n%s", err, query)
			}
			return nil
		}
		strKey, strTbl := w.d.Quote(t.str.Key), w.d.Quote(t.str.Name)
		fileCol := w.d.Quote(t.str.Columns["file"])
		ofFile := "SELECT " + strKey + " FROM " + strTbl + " WHERE " + fileCol + " = " + w.ph(1)
		if existing {
			trOfFile := "SELECT " + w.d.Quote(t.strTr.To) + " FROM " + w.d.Quote(t.strTr.Through) + " WHERE " + w.d.Quote(t.strTr.From) + " IN (" + ofFile + ")"
			for _, va := range t.votesApprovals {
				if err := q("DELETE FROM "+va+" IN ("+trOfFile+")", fileID); err != nil {
					return err
				}
			}
			if err := q("DELETE FROM "+w.d.Quote(t.tr.Name)+" WHERE "+w.d.Quote(t.tr.Key)+" IN ("+trOfFile+")", fileID); err != nil {
				return err
			}
			for _, j := range []*compile.Child{t.strTr, t.strLabel} {
				if err := q("DELETE FROM "+w.d.Quote(j.Through)+" WHERE "+w.d.Quote(j.From)+" IN ("+ofFile+")", fileID); err != nil {
					return err
				}
			}
			for _, dep := range t.dependents {
				if err := q("DELETE FROM "+dep+" IN ("+ofFile+")", fileID); err != nil {
					return err
				}
			}
			if err := q("DELETE FROM "+strTbl+" WHERE "+fileCol+" = "+w.ph(1), fileID); err != nil {
				return err
			}
		} else {
			// Another upload may have created a file since the job was
			// sent: a name is one file, and a new file takes a free id.
			var other int64
			err := tx.QueryRowContext(ctx, "SELECT "+w.d.Quote(t.file.Key)+" FROM "+w.d.Quote(t.file.Name)+" WHERE "+w.d.Quote(t.file.Columns["name"])+" = "+w.ph(1), name).Scan(&other)
			if err == nil {
				return fmt.Errorf("the file %s was created by another upload meanwhile; upload it again", name)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX("+w.d.Quote(t.file.Key)+"), 0) + 1 FROM "+w.d.Quote(t.file.Name)).Scan(&fileID); err != nil {
				return err
			}
			cols := []string{w.d.Quote(t.file.Key), w.d.Quote(t.file.Columns["name"]), w.d.Quote(t.file.Columns["type"]), w.d.Quote(t.file.Columns["context"])}
			if err := q("INSERT INTO "+w.d.Quote(t.file.Name)+" ("+strings.Join(cols, ", ")+") VALUES ("+w.phs(4)+")", fileID, name, typ, ""); err != nil {
				return err
			}
		}
		ids, err := w.nextIDs(ctx, tx, t)
		if err != nil {
			return err
		}
		for i := range strs {
			if err := w.insertString(ctx, tx, t, ids, &strs[i], fileID, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("platform: storing the strings (nothing was stored): %w", err)
	}
	return fileID, nil
}

func (w *writer) phs(n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = w.ph(i + 1)
	}
	return strings.Join(p, ", ")
}

// idGen hands out new keys.
type idGen struct{ str, tr, label int64 }

func (w *writer) nextIDs(ctx context.Context, tx *sql.Tx, t *tables) (*idGen, error) {
	var g idGen
	for _, x := range []struct {
		dst *int64
		t   *compile.Table
	}{{&g.str, t.str}, {&g.tr, t.tr}, {&g.label, t.label}} {
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX("+w.d.Quote(x.t.Key)+"), 0) FROM "+w.d.Quote(x.t.Name)).Scan(x.dst); err != nil {
			return nil, err
		}
	}
	return &g, nil
}

func (w *writer) insertString(ctx context.Context, tx *sql.Tx, t *tables, g *idGen, s *postimport.String, fileID int64, now time.Time) error {
	g.str++
	id := g.str
	typ, text := "plain", s.Text.Plain
	if s.HasPlurals {
		typ, text = "plural", s.Text.Plural["other"]
		if text == "" {
			for _, k := range []string{"one", "few", "many", "two", "zero"} {
				if v := s.Text.Plural[k]; v != "" {
					text = v
					break
				}
			}
		}
	}
	var maxLen any
	if s.MaxLength != nil {
		maxLen = int64(*s.MaxLength)
	}
	hidden := s.IsHidden != nil && *s.IsHidden
	c := t.str.Columns
	cols := []string{t.str.Key, c["type is plain"], c["text"], c["identifier"], c["context"], c["max length"], c["is hidden"],
		c["is duplicate"], c["isPassedWorkflow"], c["file"], c["branch"], c["added"], c["updated"]}
	args := []any{id, typ, text, s.Identifier, s.Context, maxLen, hidden, false, false, fileID, nil, now.Unix(), nil}
	if err := w.insert(ctx, tx, t.str.Name, cols, args); err != nil {
		return err
	}
	for _, l := range s.Labels {
		lid, err := w.label(ctx, tx, t, g, l)
		if err != nil {
			return err
		}
		if err := w.insert(ctx, tx, t.strLabel.Through, []string{t.strLabel.From, t.strLabel.To}, []any{id, lid}); err != nil {
			return err
		}
	}
	langs := make([]string, 0, len(s.Translations))
	for l := range s.Translations {
		// Only the project's target languages are stored (a source job
		// names none, so the app side's validation cannot refuse others).
		if w.proj.HasLanguage(l) {
			langs = append(langs, l)
		}
	}
	sort.Strings(langs)
	for _, l := range langs {
		if err := w.insertTranslation(ctx, tx, t, g, id, s.HasPlurals, l, s.Translations[l], now); err != nil {
			return err
		}
	}
	return nil
}

// insertTranslation stores a translation (one row per plural form) and
// its languages-summary element.
func (w *writer) insertTranslation(ctx context.Context, tx *sql.Tx, t *tables, g *idGen, stringID int64, plural bool, lang string, tr postimport.Translation, now time.Time) error {
	forms := map[string]string{"none": tr.Text.Plain}
	if plural {
		forms = tr.Text.Plural
	}
	keys := make([]string, 0, len(forms))
	for k := range forms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	translated, approved := 0, 0
	for _, k := range keys {
		status := postimport.StatusTranslated
		if tr.Status != nil {
			if tr.Status.IsPlural() {
				if v, ok := tr.Status.Plural[k]; ok {
					status = v
				}
			} else if tr.Status.Plain != "" {
				status = tr.Status.Plain
			}
		}
		if status == postimport.StatusUntranslated {
			continue
		}
		translated++
		if status == postimport.StatusApproved {
			approved++
		}
		g.tr++
		c := t.tr.Columns
		cols := []string{t.tr.Key, c["text"], c["plural form"], c["is pre translated"], c["provider"], c["language"], c["user"], c["updated"]}
		if err := w.insert(ctx, tx, t.tr.Name, cols, []any{g.tr, forms[k], k, false, nil, lang, int64(0), now.Unix()}); err != nil {
			return err
		}
		if err := w.insert(ctx, tx, t.strTr.Through, []string{t.strTr.From, t.strTr.To}, []any{stringID, g.tr}); err != nil {
			return err
		}
	}
	if translated == 0 {
		return nil
	}
	all := translated == len(keys)
	cols := []string{t.summaryFK}
	args := []any{stringID}
	fields := make([]string, 0, len(t.summary.Columns))
	for f := range t.summary.Columns {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		var v any
		switch f {
		case "language":
			v = lang
		case "translation updated":
			v = nil
		case "is translated":
			v = all
		case "is partially translated":
			v = !all
		case "is approved":
			v = approved == len(keys)
		case "is partially approved":
			v = approved > 0 && approved < len(keys)
		case "rating", "approvalsCount":
			v = int64(0)
		default:
			v = false
		}
		cols = append(cols, t.summary.Columns[f])
		args = append(args, v)
	}
	return w.insert(ctx, tx, t.summary.Name, cols, args)
}

func (w *writer) label(ctx context.Context, tx *sql.Tx, t *tables, g *idGen, title string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, "SELECT "+w.d.Quote(t.label.Key)+" FROM "+w.d.Quote(t.label.Name)+" WHERE "+w.d.Quote(t.label.Columns["title"])+" = "+w.ph(1), title).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	g.label++
	return g.label, w.insert(ctx, tx, t.label.Name, []string{t.label.Key, t.label.Columns["title"], t.label.Columns["is system"]}, []any{g.label, title, false})
}

func (w *writer) insert(ctx context.Context, tx *sql.Tx, table string, cols []string, args []any) error {
	q := make([]string, len(cols))
	for i, c := range cols {
		if c == "" {
			return fmt.Errorf("platform: the mapping lacks a column of %s", table)
		}
		q[i] = w.d.Quote(c)
	}
	for i, a := range args {
		if s, ok := a.(string); ok {
			if err := w.d.CheckString(s); err != nil {
				return err
			}
		}
		if b, ok := a.(bool); ok {
			// Booleans as 0/1: every engine of the reference schema takes them.
			args[i] = map[bool]int64{false: 0, true: 1}[b]
			if _, pg := w.d.(compile.Postgres); pg {
				args[i] = b
			}
		}
	}
	query := "INSERT INTO " + w.d.Quote(table) + " (" + strings.Join(q, ", ") + ") VALUES (" + w.phs(len(cols)) + ")"
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%w\n%s", err, query)
	}
	return nil
}

// storeTranslations stores the translations into lang of a translation
// upload's answer: for each answered string that matches a stored string
// (by uniqId, else by identifier) and carries a translation into lang,
// the stored translations of lang are replaced. Strings the answer adds
// or drops do not change the source (a translation upload never does).
func (w *writer) storeTranslations(ctx context.Context, st *server.Storage, stored []storedString, strs []postimport.String, lang string, now time.Time) (int, error) {
	t, err := w.tables()
	if err != nil {
		return 0, err
	}
	byUniq, byKey := map[string]*storedString{}, map[string]*storedString{}
	for i := range stored {
		byUniq[stored[i].uniqID] = &stored[i]
		byKey[stored[i].identifier] = &stored[i]
	}
	n := 0
	err = st.WriteTx(ctx, w.proj, func(tx *sql.Tx) error {
		g, err := w.nextIDs(ctx, tx, t)
		if err != nil {
			return err
		}
		done := map[int64]bool{}
		for i := range strs {
			s := &strs[i]
			tr, ok := s.Translations[lang]
			if !ok {
				continue
			}
			ss := byUniq[s.UniqID]
			if ss == nil {
				ss = byKey[s.Identifier]
			}
			if ss == nil || done[ss.id] {
				continue
			}
			done[ss.id] = true
			trOfString := "SELECT " + w.d.Quote(t.strTr.To) + " FROM " + w.d.Quote(t.strTr.Through) + " WHERE " + w.d.Quote(t.strTr.From) + " = " + w.ph(1)
			mine := " AND " + w.d.Quote(t.tr.Columns["language"]) + " = " + w.ph(2)
			trOfLang := "SELECT " + w.d.Quote(t.tr.Key) + " FROM " + w.d.Quote(t.tr.Name) + " WHERE " + w.d.Quote(t.tr.Key) + " IN (" + trOfString + ")" + mine
			for _, va := range t.votesApprovals {
				if _, err := tx.ExecContext(ctx, "DELETE FROM "+va+" IN ("+trOfLang+")", ss.id, lang); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+w.d.Quote(t.strTr.Through)+" WHERE "+w.d.Quote(t.strTr.From)+" = "+w.ph(1)+" AND "+w.d.Quote(t.strTr.To)+" IN ("+
				"SELECT "+w.d.Quote(t.tr.Key)+" FROM "+w.d.Quote(t.tr.Name)+" WHERE "+w.d.Quote(t.tr.Columns["language"])+" = "+w.ph(2)+")", ss.id, lang); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+w.d.Quote(t.summary.Name)+" WHERE "+w.d.Quote(t.summaryFK)+" = "+w.ph(1)+" AND "+w.d.Quote(t.summary.Columns["language"])+" = "+w.ph(2), ss.id, lang); err != nil {
				return err
			}
			if err := w.insertTranslation(ctx, tx, t, g, ss.id, ss.plural, lang, tr, now); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("platform: storing the translations (nothing was stored): %w", err)
	}
	return n, nil
}

// languageObject is the job's language object of a code, with the CLDR
// plural categories of the languages croql knows.
func languageObject(code string) postimport.Language {
	base, _, _ := strings.Cut(code, "-")
	l := postimport.Language{ID: code, Name: code, EditorCode: code, TwoLettersCode: base, Locale: code, AndroidCode: strings.ReplaceAll(code, "-", "-r"), OSXCode: code, OSXLocale: strings.ReplaceAll(code, "-", "_")}
	if cats, ok := cldrPlurals[base]; ok {
		l.PluralCategoryNames = cats
	}
	return l
}

// cldrPlurals are the CLDR cardinal categories of common languages
// (unicode.org CLDR plural rules); a language not listed gets none, which
// the validation reads as "any non-empty object".
var cldrPlurals = map[string][]string{
	"en": {"one", "other"}, "de": {"one", "other"}, "nl": {"one", "other"}, "sv": {"one", "other"},
	"it": {"one", "many", "other"}, "es": {"one", "many", "other"}, "fr": {"one", "many", "other"}, "pt": {"one", "many", "other"},
	"uk": {"one", "few", "many", "other"}, "ru": {"one", "few", "many", "other"}, "pl": {"one", "few", "many", "other"},
	"cs": {"one", "few", "many", "other"}, "ja": {"other"}, "zh": {"other"}, "ko": {"other"},
	"ar": {"zero", "one", "two", "few", "many", "other"},
}
