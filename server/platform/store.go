package platform

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
	"github.com/croql/croql/store"
)

// writer writes imported strings into a project's reference schema. The
// rows are the catalog's Go values (schema.SourceString, ...) written and
// read through the default mapping's row codecs (store.Rows): table and
// column names come from the mapping only, quoted by the project's
// dialect, and every value is a bound parameter.
type writer struct {
	proj *server.Project
	d    compile.Dialect
	m    *mapping.Mapping
	// maxProjectBytes is the per-project quota (checkProjectBytes).
	maxProjectBytes int64
	// newFile holds the title and context of a file an upload creates.
	newFile schema.File
}

func newWriter(proj *server.Project) *writer {
	return &writer{proj: proj, d: proj.Dialect(), m: proj.Mapping()}
}

func (w *writer) ph(n int) string { return w.d.Placeholder(n) }

// tables are the codecs and names the writes need, resolved once per
// write from the mapping by the catalog's Go types.
type tables struct {
	*server.Tables
	// strUpdate is every column of a string but its key; strMatch the
	// columns a translation upload matches strings by and sends a module.
	strUpdate, strMatch *store.Rows[schema.SourceString]
	// dependents are the element tables of a string (comments, summary,
	// ..., and its counts by language), trDependents those of a translation (votes, approvals).
	dependents, trDependents []elements
	// approvals are a translation's approvals.
	approvals elements
}

// elements is an element table and its foreign key.
type elements struct{ table, fk string }

func (w *writer) tables() (*tables, error) {
	st, err := server.TablesOf(w.d, w.m)
	if err != nil {
		return nil, err
	}
	t := tables{Tables: st}
	if err := t.columns(); err != nil {
		return nil, err
	}
	if err := w.children(&t); err != nil {
		return nil, err
	}
	return &t, nil
}

// columns finds the columns the writes look rows up by.
func (t *tables) columns() error {
	var err error
	// A string's shard key (on a sharded engine) is read with it and
	// never updated.
	shard := t.Str.ShardColumn()
	t.strUpdate, err = t.Str.Subset(slices.DeleteFunc(slices.Clone(t.Str.Columns()), func(c string) bool { return c == t.Str.Key() || c == shard })...)
	if err != nil {
		return err
	}
	t.strMatch, err = fieldsOf(t.Str, func(s *schema.SourceString) []any {
		return []any{&s.ID, &s.Identifier, &s.Context, &s.Text, &s.Type, &s.MaxLength, &s.PluralForms}
	})
	if err == nil && shard != "" {
		t.strMatch, err = t.Str.Subset(append(slices.Clone(t.strMatch.Columns()), shard)...)
	}
	return err
}

// children finds the join tables and element tables of strings and
// translations.
func (w *writer) children(t *tables) error {
	for _, c := range w.m.Collections(reflect.TypeFor[schema.SourceString]()) {
		if c.Child.FK != "" {
			t.dependents = append(t.dependents, elements{c.Table, c.Child.FK})
		}
	}
	for _, c := range w.m.Collections(reflect.TypeFor[schema.Translation]()) {
		if c.Child.FK != "" {
			t.trDependents = append(t.trDependents, elements{c.Table, c.Child.FK})
		}
	}
	// A string's counts by language (mapping.CountsBy) go with it; a
	// sharded engine has no such table.
	if _, sharded := w.d.(compile.Sharding); !sharded {
		l, err := w.m.Layout()
		if err != nil {
			return err
		}
		for _, cb := range l.CountsByTables() {
			if cb.Owner.Name == t.Str.Table() {
				t.dependents = append(t.dependents, elements{cb.Name, cb.Key})
			}
		}
	}
	if t.StrSummary.Child.FK != t.Sum.OwnerColumn() {
		return errors.New("platform: the mapping does not keep the languages summary by string")
	}
	t.approvals = elements{t.TrApprovals.Table, t.TrApprovals.Child.FK}
	byTable := func(a, b elements) int { return strings.Compare(a.table, b.table) }
	slices.SortFunc(t.dependents, byTable)
	slices.SortFunc(t.trDependents, byTable)
	return nil
}

// file returns the id of the file named name, or the id a new file will
// get, and whether it exists.
func (w *writer) file(ctx context.Context, st *server.Storage, name string) (id int64, existing bool, err error) {
	t, err := w.tables()
	if err != nil {
		return 0, false, err
	}
	err = st.ReadTx(ctx, w.proj, func(tx *sql.Tx) error {
		id, existing, err = w.fileByName(ctx, tx, t, name)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("platform: reading the files: %w", err)
	}
	return id, existing, nil
}

// fileByName is the id of the file named name (the first) and true, or
// the id a new file gets and false.
func (w *writer) fileByName(ctx context.Context, tx *sql.Tx, t *tables, name string) (int64, bool, error) {
	var id int64
	q := store.SelectSQL(w.d, t.File.Table(), []string{t.File.Key()}, t.FileName, 1, t.File.Key())
	err := tx.QueryRowContext(ctx, q, name).Scan(&id)
	if err == nil {
		return id, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, false, err
	}
	if err := tx.QueryRowContext(ctx, store.MaxSQL(w.d, t.File.Table(), t.File.Key())).Scan(&id); err != nil {
		return 0, false, err
	}
	return id + 1, false, nil
}

// storedString is a source string of a file as the database holds it,
// with the uniqId croql serve gives it and its labels' titles (sorted,
// without repeats; read only for updates).
type storedString struct {
	schema.SourceString
	uniqID string
	labels []string
	// shard is the string's shard key on a sharded engine (store.Owner).
	shard int64
}

func (s *storedString) plural() bool { return s.Type == "plural" }

// strings reads the strings of a file in id order.
func (w *writer) strings(ctx context.Context, st *server.Storage, fileID int64) ([]storedString, error) {
	t, err := w.tables()
	if err != nil {
		return nil, err
	}
	var out []storedString
	err = st.ReadTx(ctx, w.proj, func(tx *sql.Tx) error {
		name, err := t.File.Subset(t.FileName)
		if err != nil {
			return err
		}
		var f schema.File
		dest, raw := name.Dest()
		if err := tx.QueryRowContext(ctx, name.SelectSQL(t.File.Key(), 1), fileID).Scan(dest...); err != nil {
			return err
		}
		if _, err := name.Decode(raw, &f); err != nil {
			return err
		}
		out, err = w.readStrings(ctx, tx, t, fileID, f.Name, false)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("platform: reading the strings: %w", err)
	}
	return out, nil
}

// readStrings reads the strings of a file in id order within tx: whole
// (every column, and the labels) for an update, else the columns a
// translation upload matches by (strMatch). A string's uniqId is the one
// croql serve gives it ("hash::position", the position in id order).
func (w *writer) readStrings(ctx context.Context, tx *sql.Tx, t *tables, fileID int64, fileName string, whole bool) ([]storedString, error) {
	codec := t.strMatch
	if whole {
		codec = t.Str
	}
	// The file's count first: the strings are read into one array of
	// that size (a growing one holds up to twice its strings while it
	// grows, hundreds of megabytes for a large file).
	var n int
	count := "SELECT COUNT(*) FROM " + w.d.Quote(t.Str.Table()) + " WHERE " + w.d.Quote(t.StrFile) + " = " + w.ph(1)
	if err := tx.QueryRowContext(ctx, count, fileID).Scan(&n); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, codec.SelectSQL(t.StrFile, 1, t.Str.Key()), fileID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]storedString, 0, n)
	dest, raw := codec.Dest()
	for rows.Next() {
		var s storedString
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		o, err := codec.Decode(raw, &s.SourceString)
		if err != nil {
			return nil, err
		}
		s.shard = o.Shard
		s.uniqID = uniqID(fileName, s.Identifier, len(out)+1)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if whole {
		if err := w.readLabels(ctx, tx, t, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readLabels reads the titles of the labels of the strings strs.
func (w *writer) readLabels(ctx context.Context, tx *sql.Tx, t *tables, strs []storedString) error {
	byID := make(map[int64]*storedString, len(strs))
	ids := make([]int64, len(strs))
	for i := range strs {
		byID[strs[i].ID], ids[i] = &strs[i], strs[i].ID
	}
	links, err := w.links(ctx, tx, t.StrLabels.Child, ids)
	if err != nil {
		return err
	}
	titles := map[int64]string{}
	var labelIDs []int64
	for _, l := range links {
		if _, ok := titles[l[1]]; !ok {
			titles[l[1]] = ""
			labelIDs = append(labelIDs, l[1])
		}
	}
	sub, err := t.Label.Subset(t.Label.Key(), t.LabelTitle)
	if err != nil {
		return err
	}
	err = selectIn(ctx, tx, w.d, sub, t.Label.Key(), labelIDs, func(l *schema.Label, _ store.Owner) {
		titles[l.ID] = l.Title
	})
	if err != nil {
		return err
	}
	for _, l := range links {
		if s := byID[l[0]]; s != nil {
			s.labels = append(s.labels, titles[l[1]])
		}
	}
	for i := range strs {
		strs[i].labels = labelSet(strs[i].labels)
	}
	return nil
}

// links are the rows (parent, element) of the join table of ch whose
// parent is one of ids.
func (w *writer) links(ctx context.Context, tx *sql.Tx, ch *mapping.Child, ids []int64) ([][2]int64, error) {
	var out [][2]int64
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		rows, err := tx.QueryContext(ctx, keyedSelectSQL(w.d, ch.Through, []string{ch.From, ch.To}, ch.From, n), int64Args(ids[:n])...)
		if err != nil {
			return nil, err
		}
		ids = ids[n:]
		for rows.Next() {
			var l [2]int64
			if err := rows.Scan(&l[0], &l[1]); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// selectIn reads the rows of r's columns whose column where is one of
// keys, in chunks, and hands each to fn.
func selectIn[T any](ctx context.Context, tx *sql.Tx, d compile.Dialect, r *store.Rows[T], where string, keys []int64, fn func(*T, store.Owner)) error {
	dest, raw := r.Dest()
	var v T
	for len(keys) > 0 {
		n := min(len(keys), chunk)
		rows, err := tx.QueryContext(ctx, keyedSelectSQL(d, r.Table(), r.Columns(), where, n), int64Args(keys[:n])...)
		if err != nil {
			return err
		}
		keys = keys[n:]
		for rows.Next() {
			v = *new(T)
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return err
			}
			o, err := r.Decode(raw, &v)
			if err != nil {
				rows.Close()
				return err
			}
			fn(&v, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// int64Args are ids as statement arguments.
func int64Args(ids []int64) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args
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
			if stored, err = w.readStrings(ctx, tx, t, fileID, name, true); err != nil {
				return err
			}
			up = &FileUpdate{Option: opt}
		} else {
			var err error
			if fileID, err = w.createFile(ctx, tx, t, name, typ); err != nil {
				return err
			}
		}
		if err := w.writeStrings(ctx, tx, t, fileID, stored, strs, opt, now, up); err != nil {
			return err
		}
		if err := w.refreshCounts(ctx, tx, t, fileID); err != nil {
			return err
		}
		return w.checkProjectBytes(ctx, tx, t)
	})
	if err != nil {
		return 0, nil, fmt.Errorf("platform: storing the strings (nothing was stored): %w", err)
	}
	return fileID, up, nil
}

// refreshCounts sets the counts the mapping keeps on the rows of the
// strings of file fileID (their translations, languages summary, ...:
// mapping.Table.Counts) after a write changed them: every element a
// write adds or removes hangs on a string of the file it writes. Then it
// counts again how many strings the translations of each language of
// langs (every language when there is none) are filed under
// (store.RefreshFiledCounts), once per write: the write's translations,
// added or removed, are of those languages.
func (w *writer) refreshCounts(ctx context.Context, tx *sql.Tx, t *tables, fileID int64, langs ...any) error {
	if err := store.RefreshCounts(ctx, tx, w.d, w.m, t.Str.Table(), w.d.Quote(t.StrFile)+" = "+w.ph(1), fileID); err != nil {
		return err
	}
	return store.RefreshFiledCounts(ctx, tx, w.d, w.m, langs...)
}

// createFile inserts the file named name and returns its id. Another
// upload may have created a file since the job was sent: a name is one
// file, and a new file takes a free id.
func (w *writer) createFile(ctx context.Context, tx *sql.Tx, t *tables, name, typ string) (int64, error) {
	id, existing, err := w.fileByName(ctx, tx, t, name)
	if err != nil {
		return 0, err
	}
	if existing {
		return 0, fmt.Errorf("the file %s was created by another upload meanwhile; upload it again", name)
	}
	vals, err := t.File.Values(nil, &schema.File{ID: id, Name: name, Type: typ, Title: w.newFile.Title, Context: w.newFile.Context}, store.Owner{})
	if err != nil {
		return 0, err
	}
	return id, w.exec(ctx, tx, t.File.InsertSQL(1), vals...)
}

// writeStrings writes the answered strings strs of file fileID over its
// stored strings: matched ones updated, the others inserted, the stored
// ones nobody matched removed; up (nil for a new file) counts them.
func (w *writer) writeStrings(ctx context.Context, tx *sql.Tx, t *tables, fileID int64, stored []storedString, strs uploadStrings, opt UpdateOption, now time.Time, up *FileUpdate) error {
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
			removed = append(removed, stored[j].ID)
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
	b := w.batchWriter(tx, t, g, now)
	for i := range strs.Len() {
		s := strs.At(i)
		if match[i] < 0 {
			if err := b.insertString(ctx, &s, fileID); err != nil {
				return err
			}
			if up != nil {
				up.Added++
			}
			continue
		}
		changed, err := w.updateString(ctx, b, &stored[match[i]], &s)
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
	return b.flush(ctx)
}

// lockFile makes the first statement of a write transaction a write on
// the file's row (by id, or by name for a file not created yet), so that
// writes to one file wait for each other: a row lock in PostgreSQL and
// MariaDB, the database's write lock in SQLite, taken before anything is
// read so that no snapshot goes stale.
func (w *writer) lockFile(ctx context.Context, tx *sql.Tx, t *tables, fileID int64, name string, existing bool) error {
	set := []string{t.FileName}
	if existing {
		return w.exec(ctx, tx, store.UpdateSQL(w.d, t.File.Table(), set, t.File.Key(), 1), name, fileID)
	}
	return w.exec(ctx, tx, store.UpdateSQL(w.d, t.File.Table(), set, t.FileName, 1), name, name)
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
		byKey[s.Identifier] = append(byKey[s.Identifier], j)
	}
	for i := range match {
		s := strs.At(i)
		if j, ok := byUniq[s.UniqID]; ok && !taken[j] && stored[j].Identifier == s.Identifier {
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
// "other" form of a plural (else its first non-empty form); a plain text
// that is an ICU message with a plural, select or selectordinal argument
// is of type icu.
func sourceText(s *postimport.String) (typ, text string) {
	if !s.HasPlurals {
		if isICU(s.Text.Plain) {
			return "icu", s.Text.Plain
		}
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

// pluralForms is the stored PluralForms of a string: every form of a
// plural as a JSON object (keys sorted), "" for other strings.
func pluralForms(s *postimport.String) string {
	if !s.HasPlurals || len(s.Text.Plural) == 0 {
		return ""
	}
	b, err := json.Marshal(s.Text.Plural)
	if err != nil {
		return ""
	}
	return string(b)
}

// storedForms are the plural forms of a stored plural string: its
// PluralForms, or its text as the "other" form.
func storedForms(ss *schema.SourceString) map[string]string {
	var forms map[string]string
	if ss.PluralForms != "" && json.Unmarshal([]byte(ss.PluralForms), &forms) == nil && len(forms) > 0 {
		return forms
	}
	return map[string]string{"other": ss.Text}
}

// isICU reports whether text holds an ICU argument with a plural, select
// or selectordinal format: "{name, plural, …".
func isICU(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		rest := text[i+1:]
		name, after, ok := strings.Cut(rest, ",")
		if !ok || strings.ContainsAny(name, "{}") || strings.TrimSpace(name) == "" {
			continue
		}
		format, _, ok := strings.Cut(after, ",")
		if !ok {
			continue
		}
		switch strings.TrimSpace(format) {
		case "plural", "select", "selectordinal":
			return true
		}
	}
	return false
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
		if typ == ss.Type && text == ss.Text && pluralForms(&s) == ss.PluralForms {
			continue
		}
		sameForms := (typ == "plural") == ss.plural()
		switch {
		case opt == KeepTranslationsAndApprovals && sameForms:
			keepAll = append(keepAll, ss.ID)
		case opt == KeepTranslations && sameForms:
			keep = append(keep, ss.ID)
		default:
			clear = append(clear, ss.ID)
		}
	}
	if err := w.clearTranslations(ctx, tx, t, clear); err != nil {
		return err
	}
	if err := w.keepTranslations(ctx, tx, t, keep, false); err != nil {
		return err
	}
	return w.keepTranslations(ctx, tx, t, keepAll, true)
}

// keepTranslations marks the languages summaries of the strings ids
// "source changed after translation"; without approvals, the
// translations' approvals go and the summaries say none.
func (w *writer) keepTranslations(ctx context.Context, tx *sql.Tx, t *tables, ids []int64, approvals bool) error {
	changed := schema.LanguageSummary{IsSourceChangedAfterTranslation: true}
	fields := func(e *schema.LanguageSummary) []any { return []any{&e.IsSourceChangedAfterTranslation} }
	if !approvals {
		fields = func(e *schema.LanguageSummary) []any {
			return []any{&e.IsApproved, &e.IsPartiallyApproved, &e.ApprovalsCount, &e.IsSourceChangedAfterTranslation}
		}
	}
	upd, err := fieldsOf(t.Sum, fields)
	if err != nil {
		return err
	}
	vals, err := upd.Values(nil, &changed, store.Owner{})
	if err != nil {
		return err
	}
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		part := ids[:n]
		ids = ids[n:]
		if !approvals {
			trs, err := w.translationsOf(ctx, tx, t, part)
			if err != nil {
				return err
			}
			if err := w.deleteIn(ctx, tx, t.approvals.table, t.approvals.fk, trs); err != nil {
				return err
			}
		}
		if err := w.exec(ctx, tx, keyedUpdateSQL(w.d, t.Sum.Table(), upd.Columns(), t.Sum.OwnerColumn(), n), append(slices.Clone(vals), int64Args(part)...)...); err != nil {
			return err
		}
	}
	return nil
}

// fieldsOf is the codec of the columns of the Go fields fields points to.
func fieldsOf[T any](r *store.Rows[T], fields func(*T) []any) (*store.Rows[T], error) {
	var cols []string
	for i := range len(fields(new(T))) {
		c, err := r.Column(func(v *T) any { return fields(v)[i] })
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return r.Subset(cols...)
}

// updateString applies an answered string s to the stored string ss it
// matched: the text and attributes (type, context, max length, hidden,
// labels) are written, with updated = now, when any differs (what
// becomes of the translations of a changed text is changedTexts').
// Translations the answer carries replace the string's translations into
// their language. It reports whether the source text changed.
func (w *writer) updateString(ctx context.Context, b *batchWriter, ss *storedString, s *postimport.String) (bool, error) {
	tx, t := b.tx, b.t
	next := ss.SourceString
	fromUpload(&next, s)
	labels := labelSet(s.Labels)
	textChanged := next.Type != ss.Type || next.Text != ss.Text || next.PluralForms != ss.PluralForms
	labelsChanged := !slices.Equal(labels, ss.labels)
	before, err := t.strUpdate.Values(nil, &ss.SourceString, store.Owner{})
	if err != nil {
		return false, err
	}
	after, err := t.strUpdate.Values(nil, &next, store.Owner{})
	if err != nil {
		return false, err
	}
	if labelsChanged || !slices.Equal(before, after) {
		now := schema.Time(b.now)
		next.Updated = &now
		if after, err = t.strUpdate.Values(after[:0], &next, store.Owner{}); err != nil {
			return false, err
		}
		if err := w.exec(ctx, tx, t.strUpdate.UpdateSQL(t.Str.Key(), 1), append(after, ss.ID)...); err != nil {
			return false, err
		}
	}
	if labelsChanged {
		if err := w.deleteIn(ctx, tx, t.StrLabels.Child.Through, t.StrLabels.Child.From, []int64{ss.ID}); err != nil {
			return false, err
		}
		if err := b.linkLabels(ctx, ss.ID, ss.shard, labels); err != nil {
			return false, err
		}
	}
	for _, l := range w.storedLanguages(s) {
		if err := b.replace(ctx, replacement{id: ss.ID, shard: ss.shard, plural: s.HasPlurals, lang: l, tr: s.Translations[l]}); err != nil {
			return false, err
		}
	}
	return textChanged, nil
}

// fromUpload sets the fields of str that an upload writes from the
// uploaded string s.
func fromUpload(str *schema.SourceString, s *postimport.String) {
	str.Type, str.Text = sourceText(s)
	str.PluralForms = pluralForms(s)
	str.Context = s.Context
	str.IsHidden = s.IsHidden != nil && *s.IsHidden
	str.MaxLength = nil
	if s.MaxLength != nil {
		n := int64(*s.MaxLength)
		str.MaxLength = &n
	}
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

// deleteIn removes the rows of table whose column col is one of ids, in
// chunks.
func (w *writer) deleteIn(ctx context.Context, tx *sql.Tx, table, col string, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		if err := w.exec(ctx, tx, keyedDeleteSQL(w.d, table, col, n, ""), int64Args(ids[:n])...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// translationsOf are the ids of the translations of the strings ids.
func (w *writer) translationsOf(ctx context.Context, tx *sql.Tx, t *tables, ids []int64) ([]int64, error) {
	links, err := w.links(ctx, tx, t.StrTranslations.Child, ids)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(links))
	for i, l := range links {
		out[i] = l[1]
	}
	return out, nil
}

// clearTranslations removes the translations of the strings ids with
// their votes and approvals, and the strings' languages summaries. A
// string outside ids that lists one of those translations (a duplicate
// in another file sharing its master's) loses it too: its links to them
// go, and what its row keeps is counted again, so that no link names a
// removed translation (a new translation may take its id).
func (w *writer) clearTranslations(ctx context.Context, tx *sql.Tx, t *tables, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		part := ids[:n]
		ids = ids[n:]
		trs, err := w.translationsOf(ctx, tx, t, part)
		if err != nil {
			return err
		}
		others, err := w.sharers(ctx, tx, t, trs, part)
		if err != nil {
			return err
		}
		// Every link to them: the strings' own and the sharers'.
		if err := w.deleteIn(ctx, tx, t.StrTranslations.Child.Through, t.StrTranslations.Child.To, trs); err != nil {
			return err
		}
		for _, e := range t.trDependents {
			if err := w.deleteIn(ctx, tx, e.table, e.fk, trs); err != nil {
				return err
			}
		}
		if err := w.deleteIn(ctx, tx, t.Tr.Table(), t.Tr.Key(), trs); err != nil {
			return err
		}
		if err := w.deleteIn(ctx, tx, t.Sum.Table(), t.Sum.OwnerColumn(), part); err != nil {
			return err
		}
		if err := w.refreshStrings(ctx, tx, t, others); err != nil {
			return err
		}
	}
	return nil
}

// sharers are the strings outside part that list one of the
// translations trs.
func (w *writer) sharers(ctx context.Context, tx *sql.Tx, t *tables, trs, part []int64) ([]int64, error) {
	rev := *t.StrTranslations.Child
	rev.From, rev.To = rev.To, rev.From
	links, err := w.links(ctx, tx, &rev, trs)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, l := range links {
		if !slices.Contains(part, l[1]) {
			out = append(out, l[1])
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// refreshStrings counts again what the rows of the strings ids keep
// (store.RefreshCounts), in chunks.
func (w *writer) refreshStrings(ctx context.Context, tx *sql.Tx, t *tables, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), chunk)
		in := make([]string, n)
		for i := range in {
			in[i] = w.ph(i + 1)
		}
		where := w.d.Quote(t.Str.Key()) + " IN (" + strings.Join(in, ", ") + ")"
		if err := store.RefreshCounts(ctx, tx, w.d, w.m, t.Str.Table(), where, int64Args(ids[:n])...); err != nil {
			return err
		}
		ids = ids[n:]
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
	all := append([]elements{{t.StrLabels.Child.Through, t.StrLabels.Child.From}}, t.dependents...)
	all = append(all, elements{t.Str.Table(), t.Str.Key()})
	for _, e := range all {
		if err := w.deleteIn(ctx, tx, e.table, e.fk, ids); err != nil {
			return err
		}
	}
	return nil
}

// idGen hands out new keys.
type idGen struct{ str, tr, label int64 }

func (w *writer) nextIDs(ctx context.Context, tx *sql.Tx, t *tables) (*idGen, error) {
	var g idGen
	for _, x := range []struct {
		dst        *int64
		table, key string
	}{{&g.str, t.Str.Table(), t.Str.Key()}, {&g.tr, t.Tr.Table(), t.Tr.Key()}, {&g.label, t.Label.Table(), t.Label.Key()}} {
		if err := tx.QueryRowContext(ctx, store.MaxSQL(w.d, x.table, x.key)).Scan(x.dst); err != nil {
			return nil, err
		}
	}
	return &g, nil
}

// exec runs a statement whose string arguments the codecs checked.
func (w *writer) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	for _, a := range args {
		if v, ok := a.(string); ok {
			if err := w.d.CheckString(v); err != nil {
				return err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%w\n%s", err, query)
	}
	return nil
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
		stored, err := w.readStrings(ctx, tx, t, fileID, name, false)
		if err != nil {
			return err
		}
		byUniq, byKey := make(map[string]*storedString, len(stored)), make(map[string]*storedString, len(stored))
		for i := range stored {
			byUniq[stored[i].uniqID] = &stored[i]
			byKey[stored[i].Identifier] = &stored[i]
		}
		g, err := w.nextIDs(ctx, tx, t)
		if err != nil {
			return err
		}
		b := w.batchWriter(tx, t, g, now)
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
			if ss == nil || done[ss.ID] {
				continue
			}
			done[ss.ID] = true
			if err := b.replace(ctx, replacement{id: ss.ID, shard: ss.shard, plural: ss.plural(), lang: lang, tr: tr}); err != nil {
				return err
			}
			n++
		}
		if err := b.flush(ctx); err != nil {
			return err
		}
		if err := w.refreshCounts(ctx, tx, t, fileID, lang); err != nil {
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

// keyedSelectSQL is SELECT cols FROM table WHERE where IN (n values). On
// SQLite the values are a VALUES list joined first (CROSS JOIN fixes the
// order), so that each is looked up in the index of where: with an IN
// list SQLite weighs a scan of the table against the list by the
// planner's statistics, which a project's load took when its tables were
// small, and which uploads make stale; a scan per batch of keys made an
// upload quadratic in its strings.
func keyedSelectSQL(d compile.Dialect, table string, cols []string, where string, n int) string {
	if d.Name() != "sqlite" || n == 1 {
		return store.SelectSQL(d, table, cols, where, n)
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("s." + d.Quote(c))
	}
	keyedFrom(&b, d, table, where, n)
	return b.String()
}

// keyedDeleteSQL is DELETE FROM table WHERE where IN (n values), and
// cond (a condition on the table's columns, its placeholders after the
// list's) when not empty. On SQLite the rows are found as keyedSelectSQL
// finds them, then deleted by rowid.
func keyedDeleteSQL(d compile.Dialect, table, where string, n int, cond string) string {
	if d.Name() != "sqlite" || n == 1 {
		q := store.DeleteSQL(d, table, where, n)
		if cond != "" {
			q += " AND " + cond
		}
		return q
	}
	var b strings.Builder
	b.WriteString("DELETE FROM " + d.Quote(table) + " WHERE rowid IN (SELECT s.rowid")
	keyedFrom(&b, d, table, where, n)
	if cond != "" {
		b.WriteString(" AND " + cond)
	}
	b.WriteString(")")
	return b.String()
}

// keyedUpdateSQL is UPDATE table SET set[0] = ?, ... WHERE where IN (n
// values), the new values' placeholders first. On SQLite the rows are
// found as keyedSelectSQL finds them, then updated by rowid.
func keyedUpdateSQL(d compile.Dialect, table string, set []string, where string, n int) string {
	if d.Name() != "sqlite" || n == 1 {
		return store.UpdateSQL(d, table, set, where, n)
	}
	var b strings.Builder
	b.WriteString("UPDATE " + d.Quote(table) + " SET ")
	for i, c := range set {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Quote(c) + " = " + d.Placeholder(i+1))
	}
	b.WriteString(" WHERE rowid IN (SELECT s.rowid")
	keyedFrom(&b, d, table, where, n)
	b.WriteString(")")
	return b.String()
}

// keyedFrom writes " FROM (VALUES (?), ...) AS k CROSS JOIN table AS s
// WHERE s.where = k.column1" (SQLite).
func keyedFrom(b *strings.Builder, d compile.Dialect, table, where string, n int) {
	b.WriteString(" FROM (VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + d.Placeholder(i+1) + ")")
	}
	b.WriteString(") AS k CROSS JOIN " + d.Quote(table) + " AS s WHERE s." + d.Quote(where) + " = k.column1")
}
