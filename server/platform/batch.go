package platform

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/store"
)

// batch is a multi-row INSERT into one table being filled: the values of
// its rows wait in vals until the batch is full or the write ends. The
// statement of a full batch is built once; only the last, shorter one of
// a write is built again.
type batch struct {
	table string
	cols  []string
	max   int    // rows per statement
	full  string // the statement of max rows, built when first sent
	// stmt is full prepared on the write's transaction, which closes it.
	stmt *sql.Stmt
	vals []any
}

// newBatch is a batch of rows of the columns cols of table, as many per
// statement as chunk and the dialect's MaxParams allow.
func (w *writer) newBatch(table string, cols []string) *batch {
	return &batch{table: table, cols: cols, max: max(1, min(chunk, w.d.MaxParams()/len(cols)))}
}

// replacement is a translation of a string into a language that replaces
// the string's stored translations into it. A new string (fresh) has
// none to remove.
type replacement struct {
	id int64
	// shard is the string's shard key on a sharded engine (store.Owner).
	shard  int64
	plural bool
	fresh  bool
	lang   string
	tr     postimport.Translation
}

// ordinal is a languages-summary element of a string: its ordinal and
// its language.
type ordinal struct {
	n    int64
	lang string
}

// batchWriter makes the inserts of one write transaction in batches,
// and replaces translations a batch of strings at a time: what the
// statements of one string did is done by statements over the strings
// of a batch (IN lists), in the same order of effects. A string's
// translations into a language are replaced at most once per write
// (each string is written once by an upload).
type batchWriter struct {
	w   *writer
	tx  *sql.Tx
	t   *tables
	g   *idGen
	now int64

	str, strLabel, tr, strTr, summary *batch
	// labels are the label ids by title found or created by this write.
	labels  map[string]int64
	pending []replacement
	// The values being written, reused from row to row (the codecs copy
	// what they read into the batches).
	strBuf  schema.SourceString
	fileBuf schema.File
	trBuf   schema.Translation
	sumBuf  schema.LanguageSummary
}

func (w *writer) batchWriter(tx *sql.Tx, t *tables, g *idGen, now time.Time) *batchWriter {
	return &batchWriter{w: w, tx: tx, t: t, g: g, now: now.Unix(), labels: map[string]int64{},
		str:      w.newBatch(t.Str.Table(), t.Str.Columns()),
		strLabel: w.newBatch(t.StrLabels.Child.Through, w.linkColumns(t.StrLabels.Child)),
		tr:       w.newBatch(t.Tr.Table(), t.Tr.Columns()),
		strTr:    w.newBatch(t.StrTranslations.Child.Through, w.linkColumns(t.StrTranslations.Child)),
		summary:  w.newBatch(t.Sum.Table(), t.Sum.Columns()),
	}
}

// push takes the values of rows a codec appended to bt.vals (or its
// error), sending the batch when it is full.
func (b *batchWriter) push(ctx context.Context, bt *batch, vals []any, err error) error {
	if err != nil {
		return err
	}
	bt.vals = vals
	if len(bt.vals) >= bt.max*len(bt.cols) {
		return b.send(ctx, bt)
	}
	return nil
}

// linkColumns are the columns of a row of the join table of ch: the
// parent's and the element's keys, and on a sharded engine the shard key
// of the parent string (store.Owner).
func (w *writer) linkColumns(ch *mapping.Child) []string {
	cols := []string{ch.From, ch.To}
	if _, sharded := w.d.(compile.Sharding); sharded && w.m.Colocated()[ch.Through] {
		cols = append(cols, mapping.ShardKeyColumn)
	}
	return cols
}

// link adds a row of a join table to bt, with the parent string's shard
// key where bt has that column (linkColumns).
func (b *batchWriter) link(ctx context.Context, bt *batch, parent, elem, shard int64) error {
	if len(bt.cols) > 2 {
		return b.push(ctx, bt, append(bt.vals, parent, elem, shard), nil)
	}
	return b.push(ctx, bt, append(bt.vals, parent, elem), nil)
}

// send inserts the rows waiting in bt.
func (b *batchWriter) send(ctx context.Context, bt *batch) error {
	n := len(bt.vals) / len(bt.cols)
	if n == 0 {
		return nil
	}
	var err error
	if n == bt.max {
		if bt.stmt == nil {
			bt.full = compile.InsertSQL(b.w.d, bt.table, bt.cols, n)
			if bt.stmt, err = b.tx.PrepareContext(ctx, bt.full); err != nil {
				return fmt.Errorf("platform: preparing an insert of %d rows into %s: %w", n, bt.table, err)
			}
		}
		_, err = bt.stmt.ExecContext(ctx, bt.vals...)
	} else {
		_, err = b.tx.ExecContext(ctx, compile.InsertSQL(b.w.d, bt.table, bt.cols, n), bt.vals...)
	}
	if err != nil {
		return fmt.Errorf("platform: inserting %d rows into %s: %w", n, bt.table, err)
	}
	clear(bt.vals)
	bt.vals = bt.vals[:0]
	return nil
}

// flush replaces the translations waiting and sends every batch: after
// it, the database holds all the write made.
func (b *batchWriter) flush(ctx context.Context) error {
	if err := b.replacePending(ctx); err != nil {
		return err
	}
	return b.sendAll(ctx)
}

// sendAll sends every batch.
func (b *batchWriter) sendAll(ctx context.Context) error {
	for _, bt := range []*batch{b.str, b.strLabel, b.tr, b.strTr, b.summary} {
		if err := b.send(ctx, bt); err != nil {
			return err
		}
	}
	return nil
}

// insertString inserts a new string with its label links and
// translations.
func (b *batchWriter) insertString(ctx context.Context, s *postimport.String, fileID int64) error {
	b.g.str++
	b.fileBuf = schema.File{ID: fileID}
	str := &b.strBuf
	*str = schema.SourceString{ID: b.g.str, Identifier: s.Identifier, File: &b.fileBuf, Added: schema.Time(b.now)}
	fromUpload(str, s)
	// A new string is a master: its shard key is its id.
	vals, err := b.t.Str.Values(b.str.vals, str, store.Owner{Shard: str.ID})
	if err := b.push(ctx, b.str, vals, err); err != nil {
		return err
	}
	id := str.ID
	if err := b.linkLabels(ctx, id, id, labelSet(s.Labels)); err != nil {
		return err
	}
	for _, l := range b.w.storedLanguages(s) {
		if err := b.replace(ctx, replacement{id: id, shard: id, plural: s.HasPlurals, fresh: true, lang: l, tr: s.Translations[l]}); err != nil {
			return err
		}
	}
	return nil
}

// linkLabels links string id (of shard key shard) to the labels titled
// titles (found or created).
func (b *batchWriter) linkLabels(ctx context.Context, id, shard int64, titles []string) error {
	for _, l := range titles {
		lid, err := b.label(ctx, l)
		if err != nil {
			return err
		}
		if err := b.link(ctx, b.strLabel, id, lid, shard); err != nil {
			return err
		}
	}
	return nil
}

// label is the id of the label titled title, created when the database
// has none. A created label is inserted at once, so that the database
// compares the next titles with it (its collation may match titles Go
// tells apart).
func (b *batchWriter) label(ctx context.Context, title string) (int64, error) {
	if id, ok := b.labels[title]; ok {
		return id, nil
	}
	t, w := b.t, b.w
	if err := w.d.CheckString(title); err != nil {
		return 0, err
	}
	var id int64
	q := store.SelectSQL(w.d, t.Label.Table(), []string{t.Label.Key()}, t.LabelTitle, 1)
	err := b.tx.QueryRowContext(ctx, q, title).Scan(&id)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if err != nil {
		b.g.label++
		id = b.g.label
		vals, err := t.Label.Values(nil, &schema.Label{ID: id, Title: title}, store.Owner{})
		if err != nil {
			return 0, err
		}
		if err := w.exec(ctx, b.tx, t.Label.InsertSQL(1), vals...); err != nil {
			return 0, err
		}
	}
	b.labels[title] = id
	return id, nil
}

// replace makes r's translation replace the string's translations into
// its language (removed with their votes and approvals, with the
// string's languages-summary element of the language), when the batch
// of replacements waiting is sent.
func (b *batchWriter) replace(ctx context.Context, r replacement) error {
	if err := b.w.d.CheckString(r.lang); err != nil {
		return err
	}
	b.pending = append(b.pending, r)
	if len(b.pending) >= chunk {
		return b.replacePending(ctx)
	}
	return nil
}

// replacePending replaces the translations of the replacements waiting:
// the stored translations of their strings and languages go, then the
// new ones are added (a row per translated plural form, and a
// languages-summary element when any form is translated). The ordinal
// of a new summary element is the string's largest left, plus one, as
// if the strings were written one after the other.
func (b *batchWriter) replacePending(ctx context.Context) error {
	if len(b.pending) == 0 {
		return nil
	}
	pending := b.pending
	b.pending = b.pending[:0]
	ords := map[int64][]ordinal{}
	var ids []int64
	langs := map[int64][]string{}
	for _, r := range pending {
		if r.fresh {
			continue
		}
		if _, ok := langs[r.id]; !ok {
			ids = append(ids, r.id)
		}
		langs[r.id] = append(langs[r.id], r.lang)
	}
	if len(ids) > 0 {
		// The reads see the rows written so far: a string's languages
		// may be split between two batches of replacements.
		if err := b.sendAll(ctx); err != nil {
			return err
		}
		var err error
		if ords, err = b.ordinals(ctx, ids); err != nil {
			return err
		}
		if err := b.dropTranslations(ctx, ids, langs); err != nil {
			return err
		}
	}
	for _, r := range pending {
		if err := b.insertTranslation(ctx, r, ords); err != nil {
			return err
		}
	}
	clear(pending)
	return nil
}

// ordinals reads the ordinals and languages of the languages-summary
// elements of the strings ids.
func (b *batchWriter) ordinals(ctx context.Context, ids []int64) (map[int64][]ordinal, error) {
	t := b.t
	sub, err := t.Sum.Subset(t.Sum.OwnerColumn(), mapping.OrdinalColumn, t.SumLang)
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]ordinal, len(ids))
	err = selectIn(ctx, b.tx, b.w.d, sub, t.Sum.OwnerColumn(), ids, func(e *schema.LanguageSummary, o store.Owner) {
		out[o.Key] = append(out[o.Key], ordinal{n: o.Ordinal, lang: e.Language})
	})
	return out, err
}

// dropTranslations removes the translations of the strings ids into
// their languages langs with their votes and approvals, and their
// languages-summary elements of those languages.
func (b *batchWriter) dropTranslations(ctx context.Context, ids []int64, langs map[int64][]string) error {
	t, w := b.t, b.w
	// All the strings' translations, the languages picked here: a filter
	// on the language in SQL lets an engine without statistics (SQLite)
	// walk every translation of the language.
	links, err := w.links(ctx, b.tx, t.StrTranslations.Child, ids)
	if err != nil {
		return err
	}
	stringOf := make(map[int64]int64, len(links))
	trIDs := make([]int64, len(links))
	for i, l := range links {
		stringOf[l[1]], trIDs[i] = l[0], l[1]
	}
	sub, err := t.Tr.Subset(t.Tr.Key(), t.TrLang)
	if err != nil {
		return err
	}
	var trs []int64
	err = selectIn(ctx, b.tx, b.w.d, sub, t.Tr.Key(), trIDs, func(tr *schema.Translation, _ store.Owner) {
		if slices.Contains(langs[stringOf[tr.ID]], tr.Language) {
			trs = append(trs, tr.ID)
		}
	})
	if err != nil {
		return err
	}
	for _, e := range t.trDependents {
		if err := w.deleteIn(ctx, b.tx, e.table, e.fk, trs); err != nil {
			return err
		}
	}
	// The links by translation alone (a translation belongs to one
	// string): with the strings' ids too, SQLite would seek its key
	// (string, translation) for every pair of the two lists.
	if err := w.deleteIn(ctx, b.tx, t.StrTranslations.Child.Through, t.StrTranslations.Child.To, trs); err != nil {
		return err
	}
	if err := w.deleteIn(ctx, b.tx, t.Tr.Table(), t.Tr.Key(), trs); err != nil {
		return err
	}
	return b.dropSummaries(ctx, ids, langs)
}

// dropSummaries removes the languages-summary elements of the strings
// ids in their languages langs, a statement per language. COALESCE keeps
// the language's index out of the plan (the column is NOT NULL): SQLite,
// without statistics, would walk every summary of the language instead
// of the strings' few.
func (b *batchWriter) dropSummaries(ctx context.Context, ids []int64, langs map[int64][]string) error {
	t, w := b.t, b.w
	byLang := map[string][]int64{}
	var order []string
	for _, id := range ids {
		for _, l := range langs[id] {
			if _, ok := byLang[l]; !ok {
				order = append(order, l)
			}
			byLang[l] = append(byLang[l], id)
		}
	}
	for _, l := range order {
		n := len(byLang[l])
		q := keyedDeleteSQL(w.d, t.Sum.Table(), t.Sum.OwnerColumn(), n, "COALESCE("+w.d.Quote(t.SumLang)+", '') = "+w.ph(n+1))
		if err := w.exec(ctx, b.tx, q, append(int64Args(byLang[l]), l)...); err != nil {
			return err
		}
	}
	return nil
}

// insertTranslation adds the rows of r's translation (one per translated
// plural form) and its languages-summary element; ords are the summary
// elements of the strings (updated: r's language's are gone, the new
// one is added).
func (b *batchWriter) insertTranslation(ctx context.Context, r replacement, ords map[int64][]ordinal) error {
	// The language's summary element was removed with its translations.
	if os := ords[r.id]; len(os) > 0 {
		ords[r.id] = slices.DeleteFunc(os, func(o ordinal) bool { return o.lang == r.lang })
	}
	forms := map[string]string{"none": r.tr.Text.Plain}
	if r.plural {
		forms = r.tr.Text.Plural
	}
	keys := sortedKeys(forms)
	translated, approved := 0, 0
	for _, k := range keys {
		status := formStatus(r.tr.Status, k)
		if status == postimport.StatusUntranslated {
			continue
		}
		translated++
		if status == postimport.StatusApproved {
			approved++
		}
		b.g.tr++
		tr := &b.trBuf
		*tr = schema.Translation{ID: b.g.tr, Text: forms[k], PluralForm: k, Language: r.lang, Added: schema.Time(b.now), Updated: schema.Time(b.now)}
		vals, err := b.t.Tr.Values(b.tr.vals, tr, store.Owner{Shard: r.shard})
		if err := b.push(ctx, b.tr, vals, err); err != nil {
			return err
		}
		if err := b.link(ctx, b.strTr, r.id, tr.ID, r.shard); err != nil {
			return err
		}
	}
	if translated == 0 {
		return nil
	}
	all := translated == len(keys)
	// The summary elements of a string are keyed by the string and an
	// ordinal (mapping.OrdinalColumn): the next one. Writes to the
	// string's file wait for each other (lockFile), so no other
	// transaction takes the same ordinal meanwhile.
	ord := int64(0)
	for i, o := range ords[r.id] {
		if i == 0 || o.n+1 > ord {
			ord = o.n + 1
		}
	}
	ords[r.id] = append(ords[r.id], ordinal{n: ord, lang: r.lang})
	e := &b.sumBuf
	*e = schema.LanguageSummary{Language: r.lang, IsTranslated: all, IsPartiallyTranslated: !all,
		IsApproved: approved == len(keys), IsPartiallyApproved: approved > 0 && approved < len(keys)}
	vals, err := b.t.Sum.Values(b.summary.vals, e, store.Owner{Key: r.id, Ordinal: ord, Shard: r.shard})
	return b.push(ctx, b.summary, vals, err)
}

// sortedKeys are the keys of m, sorted.
func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// formStatus is the status of plural form k of a translation: its own,
// the plain status, or translated when none is given.
func formStatus(st *postimport.Status, k string) string {
	switch {
	case st == nil:
	case st.IsPlural():
		if v, ok := st.Plural[k]; ok {
			return v
		}
	case st.Plain != "":
		return st.Plain
	}
	return postimport.StatusTranslated
}
