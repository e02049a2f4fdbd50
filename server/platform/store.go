package platform

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// writer writes imported strings into a project's reference schema. Table
// and column names come from the default mapping (mapping.Default)
// and are quoted by the project's dialect; every value is a bound
// parameter.
type writer struct {
	proj *server.Project
	d    compile.Dialect
	m    *mapping.Mapping
	// maxProjectBytes is the per-project quota (checkProjectBytes).
	maxProjectBytes int64
}

func newWriter(proj *server.Project) *writer {
	return &writer{proj: proj, d: proj.Dialect(), m: mapping.Default(schema.New())}
}

// tbl returns the table of a mapping object and a column getter that
// fails loudly on a field the mapping lacks.
func (w *writer) tbl(obj string) (*mapping.Table, error) {
	t, ok := w.m.Tables[obj]
	if !ok || t == nil {
		return nil, fmt.Errorf("platform: the mapping has no table for %s", obj)
	}
	return t, nil
}

func (w *writer) col(t *mapping.Table, field string) (string, error) {
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
	typ        string // the "type" column: plain, plural, icu, asset
	plural     bool
	maxLength  *int
	hidden     bool
	labels     []string // titles, sorted, without repeats (read only for updates)
}

// strings reads the strings of a file in id order.
func (w *writer) strings(ctx context.Context, st *server.Storage, fileID int64) ([]storedString, error) {
	ft, err := w.tbl("file")
	if err != nil {
		return nil, err
	}
	nameCol, err := w.col(ft, "name")
	if err != nil {
		return nil, err
	}
	var out []storedString
	err = st.ReadTx(ctx, w.proj, func(tx *sql.Tx) error {
		var fileName string
		if err := tx.QueryRowContext(ctx, "SELECT "+nameCol+" FROM "+w.d.Quote(ft.Name)+" WHERE "+w.d.Quote(ft.Key)+" = "+w.ph(1), fileID).Scan(&fileName); err != nil {
			return err
		}
		out, err = w.readStrings(ctx, tx, fileID, fileName, false)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("platform: reading the strings: %w", err)
	}
	return out, nil
}

// readStrings reads the strings of a file in id order within tx, with
// their labels when withLabels is set. A string's uniqId is the one
// croql serve gives it ("hash::position", the position in id order).
func (w *writer) readStrings(ctx context.Context, tx *sql.Tx, fileID int64, fileName string, withLabels bool) ([]storedString, error) {
	t, err := w.tbl("source string")
	if err != nil {
		return nil, err
	}
	cols := []string{w.d.Quote(t.Key)}
	for _, f := range []string{"identifier", "context", "text", "type is plural", "max length", "is hidden", "file"} {
		c, err := w.col(t, f)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	ofFile := " FROM " + w.d.Quote(t.Name) + " WHERE " + cols[7] + " = " + w.ph(1)
	rows, err := tx.QueryContext(ctx, "SELECT "+strings.Join(cols[:7], ", ")+ofFile+" ORDER BY "+cols[0], fileID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedString
	for rows.Next() {
		var s storedString
		var ml sql.NullInt64
		if err := rows.Scan(&s.id, &s.identifier, &s.context, &s.text, &s.typ, &ml, &s.hidden); err != nil {
			return nil, err
		}
		s.plural = s.typ == "plural"
		if ml.Valid {
			n := int(ml.Int64)
			s.maxLength = &n
		}
		s.uniqID = uniqID(fileName, s.identifier, len(out)+1)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !withLabels || len(out) == 0 {
		return out, nil
	}
	sl := t.Children["labels"]
	lt, err := w.tbl("label")
	if err != nil {
		return nil, err
	}
	if sl == nil || sl.Through == "" {
		return nil, errors.New("platform: the mapping does not keep labels in a join table")
	}
	title, err := w.col(lt, "title")
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*storedString, len(out))
	for i := range out {
		byID[out[i].id] = &out[i]
	}
	lrows, err := tx.QueryContext(ctx, "SELECT j."+w.d.Quote(sl.From)+", l."+title+" FROM "+w.d.Quote(sl.Through)+" AS j JOIN "+w.d.Quote(lt.Name)+" AS l ON l."+w.d.Quote(lt.Key)+" = j."+w.d.Quote(sl.To)+
		" WHERE j."+w.d.Quote(sl.From)+" IN (SELECT "+cols[0]+ofFile+")", fileID)
	if err != nil {
		return nil, err
	}
	defer lrows.Close()
	for lrows.Next() {
		var id int64
		var title string
		if err := lrows.Scan(&id, &title); err != nil {
			return nil, err
		}
		if s := byID[id]; s != nil {
			s.labels = append(s.labels, title)
		}
	}
	if err := lrows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].labels = labelSet(out[i].labels)
	}
	return out, nil
}

// labelSet is a list of label titles sorted, without repeats.
func labelSet(titles []string) []string {
	if len(titles) == 0 {
		return nil
	}
	out := slices.Clone(titles)
	sort.Strings(out)
	return slices.Compact(out)
}

// tables are the names the writes need, resolved once per write.
type tables struct {
	str, file, tr, label, summary *mapping.Table
	strTr, strLabel               *mapping.Child
	summaryFK                     string
	dependents                    []string // element tables keyed by string id
	votesApprovals                []string // element tables keyed by translation id
	approvals                     string   // the approvals among them
}

func (w *writer) tables() (*tables, error) {
	var t tables
	var err error
	for _, x := range []struct {
		dst **mapping.Table
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
				if name == "approvals" {
					t.approvals = t.votesApprovals[len(t.votesApprovals)-1]
				}
			}
		}
	}
	sort.Strings(t.votesApprovals)
	if t.approvals == "" {
		return nil, errors.New("platform: the mapping keeps no approvals of translations")
	}
	return &t, nil
}

// tableNamed finds the element table of a collection field of parent.
func (w *writer) tableNamed(parent *mapping.Table, field string) (string, bool) {
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

// replaceFile stores the strings of a source upload in one transaction.
// A new file is created with its strings. An update (existing) is the
// platform's file update: the answered strings are matched to the
// file's stored strings (matchStrings); a matched string keeps its id,
// its translations, votes, approvals, comments and languages summary,
// and takes the answered text and attributes; when its source text
// changed, opt says what happens to its translations and approvals;
// stored strings nobody matched are removed with everything that hangs
// on them; the others are inserted with new ids.
func (w *writer) replaceFile(ctx context.Context, st *server.Storage, fileID int64, existing bool, name, typ string, strs uploadStrings, opt UpdateOption, now time.Time) (int64, *FileUpdate, error) {
	t, err := w.tables()
	if err != nil {
		return 0, nil, err
	}
	var up *FileUpdate
	err = st.WriteTx(ctx, w.proj, func(tx *sql.Tx) error {
		up = nil
		if err := w.lockFile(ctx, tx, t, fileID, name, existing); err != nil {
			return err
		}
		var stored []storedString
		if existing {
			var err error
			if stored, err = w.readStrings(ctx, tx, fileID, name, true); err != nil {
				return err
			}
			up = &FileUpdate{Option: opt}
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
			cols := []string{t.file.Key, t.file.Columns["name"], t.file.Columns["type"], t.file.Columns["context"]}
			if err := w.insert(ctx, tx, t.file.Name, cols, []any{fileID, name, typ, ""}); err != nil {
				return err
			}
		}
		match := matchStrings(stored, strs)
		matched := make([]bool, len(stored))
		for _, j := range match {
			if j >= 0 {
				matched[j] = true
			}
		}
		var removed []int64
		for j := range stored {
			if !matched[j] {
				removed = append(removed, stored[j].id)
			}
		}
		// New ids follow the largest before the removal: a removed id is
		// not handed out again by this upload.
		g, err := w.nextIDs(ctx, tx, t)
		if err != nil {
			return err
		}
		if err := w.deleteStrings(ctx, tx, t, removed); err != nil {
			return err
		}
		if err := w.changedTexts(ctx, tx, t, stored, match, strs, opt); err != nil {
			return err
		}
		b, err := w.batchWriter(tx, t, g, now)
		if err != nil {
			return err
		}
		for i := range strs.Len() {
			str := strs.At(i)
			s := &str
			if match[i] < 0 {
				if err := b.insertString(ctx, s, fileID); err != nil {
					return err
				}
				if up != nil {
					up.Added++
				}
				continue
			}
			changed, err := w.updateString(ctx, b, &stored[match[i]], s)
			if err != nil {
				return err
			}
			if changed {
				up.Updated++
			} else {
				up.Unchanged++
			}
		}
		if up != nil {
			up.Deleted = len(removed)
		}
		if err := b.flush(ctx); err != nil {
			return err
		}
		return w.checkProjectBytes(ctx, tx, t)
	})
	if err != nil {
		return 0, nil, fmt.Errorf("platform: storing the strings (nothing was stored): %w", err)
	}
	return fileID, up, nil
}

// lockFile makes the first statement of a write transaction a write on
// the file's row (by id, or by name for a file not created yet), so that
// writes to one file wait for each other: a row lock in PostgreSQL and
// MariaDB, the database's write lock in SQLite, taken before anything is
// read so that no snapshot goes stale.
func (w *writer) lockFile(ctx context.Context, tx *sql.Tx, t *tables, fileID int64, name string, existing bool) error {
	nameCol := w.d.Quote(t.file.Columns["name"])
	if existing {
		return w.exec(ctx, tx, "UPDATE "+w.d.Quote(t.file.Name)+" SET "+nameCol+" = "+w.ph(1)+" WHERE "+w.d.Quote(t.file.Key)+" = "+w.ph(2), name, fileID)
	}
	return w.exec(ctx, tx, "UPDATE "+w.d.Quote(t.file.Name)+" SET "+nameCol+" = "+w.ph(1)+" WHERE "+nameCol+" = "+w.ph(2), name, name)
}

// matchStrings pairs each answered string with a stored string of the
// file (its index in stored, -1 for a new string): first a string whose
// uniqId and identifier both equal a stored string's (the uniqId croql
// serve gives a stored string, "hash::position"), then the first stored
// string left with the same identifier, in id order. A stored string is
// matched at most once.
func matchStrings(stored []storedString, strs uploadStrings) []int {
	match := make([]int, strs.Len())
	for i := range match {
		match[i] = -1
	}
	if len(stored) == 0 {
		return match
	}
	taken := make([]bool, len(stored))
	byUniq := make(map[string]int, len(stored))
	byKey := make(map[string][]int, len(stored))
	for j, s := range stored {
		byUniq[s.uniqID] = j
		byKey[s.identifier] = append(byKey[s.identifier], j)
	}
	for i := range match {
		s := strs.At(i)
		if j, ok := byUniq[s.UniqID]; ok && !taken[j] && stored[j].identifier == s.Identifier {
			match[i], taken[j] = j, true
		}
	}
	for i := range match {
		if match[i] >= 0 {
			continue
		}
		s := strs.At(i)
		for _, j := range byKey[s.Identifier] {
			if !taken[j] {
				match[i], taken[j] = j, true
				break
			}
		}
	}
	return match
}

// sourceText is the type and the stored source text of a string: the
// "other" form of a plural (else its first non-empty form).
func sourceText(s *postimport.String) (typ, text string) {
	if !s.HasPlurals {
		return "plain", s.Text.Plain
	}
	text = s.Text.Plural["other"]
	if text == "" {
		for _, k := range []string{"one", "few", "many", "two", "zero"} {
			if v := s.Text.Plural[k]; v != "" {
				return "plural", v
			}
		}
	}
	return "plural", text
}

// changedTexts applies opt to the matched strings whose source text
// changed (the stored text or the type), in batches: their translations
// are cleared with their votes, approvals and summaries (the default,
// and always when a string becomes plural or stops being one, as its
// plural forms no longer fit), kept without approvals, or kept with
// them; kept translations are marked "source changed after translation".
func (w *writer) changedTexts(ctx context.Context, tx *sql.Tx, t *tables, stored []storedString, match []int, strs uploadStrings, opt UpdateOption) error {
	var clear, keep, keepAll []int64
	for i, j := range match {
		if j < 0 {
			continue
		}
		ss := &stored[j]
		s := strs.At(i)
		typ, text := sourceText(&s)
		if typ == ss.typ && text == ss.text {
			continue
		}
		sameForms := (typ == "plural") == ss.plural
		switch {
		case opt == KeepTranslationsAndApprovals && sameForms:
			keepAll = append(keepAll, ss.id)
		case opt == KeepTranslations && sameForms:
			keep = append(keep, ss.id)
		default:
			clear = append(clear, ss.id)
		}
	}
	if err := w.clearTranslations(ctx, tx, t, clear); err != nil {
		return err
	}
	c := t.summary.Columns
	changed := c["is source changed after translation"]
	for len(keep) > 0 {
		n := min(len(keep), chunk)
		list, args := w.in(1, keep[:n])
		keep = keep[n:]
		trOf := "SELECT " + w.d.Quote(t.strTr.To) + " FROM " + w.d.Quote(t.strTr.Through) + " WHERE " + w.d.Quote(t.strTr.From) + " IN (" + list + ")"
		if err := w.exec(ctx, tx, "DELETE FROM "+t.approvals+" IN ("+trOf+")", args...); err != nil {
			return err
		}
		if err := w.updateIn(ctx, tx, t.summary.Name, []string{c["is approved"], c["is partially approved"], c["approvalsCount"], changed},
			[]any{false, false, int64(0), true}, t.summaryFK, args); err != nil {
			return err
		}
	}
	for len(keepAll) > 0 {
		n := min(len(keepAll), chunk)
		_, args := w.in(1, keepAll[:n])
		keepAll = keepAll[n:]
		if err := w.updateIn(ctx, tx, t.summary.Name, []string{changed}, []any{true}, t.summaryFK, args); err != nil {
			return err
		}
	}
	return nil
}

// updateString applies an answered string s to the stored string ss it
// matched: the text and attributes (type, context, max length, hidden,
// labels) are written, with updated = now, when any differs (what
// becomes of the translations of a changed text is changedTexts').
// Translations the answer carries replace the string's translations into
// their language. It reports whether the source text changed.
func (w *writer) updateString(ctx context.Context, b *batchWriter, ss *storedString, s *postimport.String) (bool, error) {
	tx, t := b.tx, b.t
	typ, text := sourceText(s)
	hidden := s.IsHidden != nil && *s.IsHidden
	labels := labelSet(s.Labels)
	textChanged := typ != ss.typ || text != ss.text
	sameMax := (s.MaxLength == nil) == (ss.maxLength == nil) && (s.MaxLength == nil || *s.MaxLength == *ss.maxLength)
	labelsChanged := !slices.Equal(labels, ss.labels)
	if textChanged || s.Context != ss.context || !sameMax || hidden != ss.hidden || labelsChanged {
		var maxLen any
		if s.MaxLength != nil {
			maxLen = int64(*s.MaxLength)
		}
		c := t.str.Columns
		if err := w.updateIn(ctx, tx, t.str.Name, []string{c["type is plain"], c["text"], c["context"], c["max length"], c["is hidden"], c["updated"]},
			[]any{typ, text, s.Context, maxLen, hidden, b.now}, t.str.Key, []any{ss.id}); err != nil {
			return false, err
		}
	}
	if labelsChanged {
		if err := w.exec(ctx, tx, "DELETE FROM "+w.d.Quote(t.strLabel.Through)+" WHERE "+w.d.Quote(t.strLabel.From)+" = "+w.ph(1), ss.id); err != nil {
			return false, err
		}
		if err := b.linkLabels(ctx, ss.id, labels); err != nil {
			return false, err
		}
	}
	for _, l := range w.storedLanguages(s) {
		if err := b.replace(ctx, replacement{id: ss.id, plural: s.HasPlurals, lang: l, tr: s.Translations[l]}); err != nil {
			return false, err
		}
	}
	return textChanged, nil
}

// storedLanguages are the languages of s's translations that are stored:
// the project's target languages (a source job names none, so the app
// side's validation cannot refuse others), sorted.
func (w *writer) storedLanguages(s *postimport.String) []string {
	langs := make([]string, 0, len(s.Translations))
	for l := range s.Translations {
		if w.proj.HasLanguage(l) {
			langs = append(langs, l)
		}
	}
	sort.Strings(langs)
	return langs
}

// chunk is how many ids one IN list binds (well under every engine's
// limit of parameters per statement).
const chunk = 500

// in is an IN list of placeholders from..from+n-1 and the ids as
// arguments.
func (w *writer) in(from int, ids []int64) (string, []any) {
	p := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		p[i] = w.ph(from + i)
		args[i] = id
	}
	return strings.Join(p, ", "), args
}

// clearTranslations removes the translations of the strings ids with
// their votes and approvals, and the strings' languages summaries.
func (w *writer) clearTranslations(ctx context.Context, tx *sql.Tx, t *tables, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		list, args := w.in(1, ids[:n])
		ids = ids[n:]
		trOf := "SELECT " + w.d.Quote(t.strTr.To) + " FROM " + w.d.Quote(t.strTr.Through) + " WHERE " + w.d.Quote(t.strTr.From) + " IN (" + list + ")"
		for _, va := range t.votesApprovals {
			if err := w.exec(ctx, tx, "DELETE FROM "+va+" IN ("+trOf+")", args...); err != nil {
				return err
			}
		}
		for _, q := range []string{
			"DELETE FROM " + w.d.Quote(t.tr.Name) + " WHERE " + w.d.Quote(t.tr.Key) + " IN (" + trOf + ")",
			"DELETE FROM " + w.d.Quote(t.strTr.Through) + " WHERE " + w.d.Quote(t.strTr.From) + " IN (" + list + ")",
			"DELETE FROM " + w.d.Quote(t.summary.Name) + " WHERE " + w.d.Quote(t.summaryFK) + " IN (" + list + ")",
		} {
			if err := w.exec(ctx, tx, q, args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteStrings removes the strings ids with everything that hangs on
// them: translations (with votes and approvals), label links, languages
// summaries, comments, screenshots, custom fields.
func (w *writer) deleteStrings(ctx context.Context, tx *sql.Tx, t *tables, ids []int64) error {
	if err := w.clearTranslations(ctx, tx, t, ids); err != nil {
		return err
	}
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		list, args := w.in(1, ids[:n])
		ids = ids[n:]
		qs := []string{"DELETE FROM " + w.d.Quote(t.strLabel.Through) + " WHERE " + w.d.Quote(t.strLabel.From) + " IN (" + list + ")"}
		for _, dep := range t.dependents {
			qs = append(qs, "DELETE FROM "+dep+" IN ("+list+")")
		}
		qs = append(qs, "DELETE FROM "+w.d.Quote(t.str.Name)+" WHERE "+w.d.Quote(t.str.Key)+" IN ("+list+")")
		for _, q := range qs {
			if err := w.exec(ctx, tx, q, args...); err != nil {
				return err
			}
		}
	}
	return nil
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
		t   *mapping.Table
	}{{&g.str, t.str}, {&g.tr, t.tr}, {&g.label, t.label}} {
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX("+w.d.Quote(x.t.Key)+"), 0) FROM "+w.d.Quote(x.t.Name)).Scan(x.dst); err != nil {
			return nil, err
		}
	}
	return &g, nil
}

// arg is a value as it is bound: strings checked against the engine;
// booleans go as Go bools, which every driver binds to its boolean
// columns (the loader binds them the same way).
func (w *writer) arg(a any) (any, error) {
	if v, ok := a.(string); ok {
		if err := w.d.CheckString(v); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (w *writer) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	for i := range args {
		var err error
		if args[i], err = w.arg(args[i]); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%w\n%s", err, query)
	}
	return nil
}

func (w *writer) insert(ctx context.Context, tx *sql.Tx, table string, cols []string, args []any) error {
	q := make([]string, len(cols))
	for i, c := range cols {
		if c == "" {
			return fmt.Errorf("platform: the mapping lacks a column of %s", table)
		}
		q[i] = w.d.Quote(c)
	}
	return w.exec(ctx, tx, "INSERT INTO "+w.d.Quote(table)+" ("+strings.Join(q, ", ")+") VALUES ("+w.phs(len(cols))+")", args...)
}

// updateIn sets the columns cols of the rows of table whose column key
// is among ids.
func (w *writer) updateIn(ctx context.Context, tx *sql.Tx, table string, cols []string, args []any, key string, ids []any) error {
	set := make([]string, len(cols))
	for i, c := range cols {
		if c == "" {
			return fmt.Errorf("platform: the mapping lacks a column of %s", table)
		}
		set[i] = w.d.Quote(c) + " = " + w.ph(i+1)
	}
	in := make([]string, len(ids))
	for i := range ids {
		in[i] = w.ph(len(cols) + 1 + i)
	}
	return w.exec(ctx, tx, "UPDATE "+w.d.Quote(table)+" SET "+strings.Join(set, ", ")+" WHERE "+w.d.Quote(key)+" IN ("+strings.Join(in, ", ")+")", append(slices.Clone(args), ids...)...)
}

// storeTranslations stores the translations into lang of a translation
// upload's answer, answer(the file's strings): for each answered string
// that matches a string of the file (by uniqId, else by identifier; the
// strings are read again after the file is locked, so an update that ran
// meanwhile is seen) and carries a translation into lang, the stored
// translations of lang are replaced (removed with their votes and
// approvals, not only unlinked from the string). Strings the answer adds or drops do not change the
// source (a translation upload never does).
func (w *writer) storeTranslations(ctx context.Context, st *server.Storage, fileID int64, name string, answer func([]storedString) uploadStrings, lang string, now time.Time) (int, error) {
	t, err := w.tables()
	if err != nil {
		return 0, err
	}
	n := 0
	err = st.WriteTx(ctx, w.proj, func(tx *sql.Tx) error {
		n = 0
		if err := w.lockFile(ctx, tx, t, fileID, name, true); err != nil {
			return err
		}
		stored, err := w.readStrings(ctx, tx, fileID, name, false)
		if err != nil {
			return err
		}
		byUniq, byKey := map[string]*storedString{}, map[string]*storedString{}
		for i := range stored {
			byUniq[stored[i].uniqID] = &stored[i]
			byKey[stored[i].identifier] = &stored[i]
		}
		g, err := w.nextIDs(ctx, tx, t)
		if err != nil {
			return err
		}
		b, err := w.batchWriter(tx, t, g, now)
		if err != nil {
			return err
		}
		done := map[int64]bool{}
		strs := answer(stored)
		for i := range strs.Len() {
			s := strs.At(i)
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
			if err := b.replace(ctx, replacement{id: ss.id, plural: ss.plural, lang: lang, tr: tr}); err != nil {
				return err
			}
			n++
		}
		if err := b.flush(ctx); err != nil {
			return err
		}
		return w.checkProjectBytes(ctx, tx, t)
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
