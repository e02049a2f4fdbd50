package platform

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/mapping"
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
func (w *writer) newBatch(table string, cols []string) (*batch, error) {
	for _, c := range cols {
		if c == "" {
			return nil, fmt.Errorf("platform: the mapping lacks a column of %s", table)
		}
	}
	return &batch{table: table, cols: cols, max: max(1, min(chunk, w.d.MaxParams()/len(cols)))}, nil
}

// insertRows is INSERT INTO table (cols) VALUES (...), ... for n rows.
func (w *writer) insertRows(table string, cols []string, n int) string {
	return compile.InsertSQL(w.d, table, cols, n)
}

// replacement is a translation of a string into a language that replaces
// the string's stored translations into it. A new string (fresh) has
// none to remove.
type replacement struct {
	id     int64
	plural bool
	fresh  bool
	lang   string
	tr     postimport.Translation
}

// ordinal is a languages-summary element of a string: its ordinal and
// its language (empty for NULL).
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
	// summaryFields are the fields of the summary's columns, sorted,
	// after its foreign key and ordinal.
	summaryFields []string
	// labels are the label ids by title found or created by this write.
	labels  map[string]int64
	pending []replacement
}

func (w *writer) batchWriter(tx *sql.Tx, t *tables, g *idGen, now time.Time) (*batchWriter, error) {
	b := &batchWriter{w: w, tx: tx, t: t, g: g, now: now.Unix(), labels: map[string]int64{}}
	c := t.str.Columns
	tc := t.tr.Columns
	b.summaryFields = sortedKeys(t.summary.Columns)
	sumCols := []string{t.summaryFK, mapping.OrdinalColumn}
	for _, f := range b.summaryFields {
		sumCols = append(sumCols, t.summary.Columns[f])
	}
	var err error
	for _, x := range []struct {
		dst   **batch
		table string
		cols  []string
	}{
		{&b.str, t.str.Name, []string{t.str.Key, c["type is plain"], c["text"], c["identifier"], c["context"], c["max length"], c["is hidden"],
			c["is duplicate"], c["isPassedWorkflow"], c["file"], c["branch"], c["added"], c["updated"]}},
		{&b.strLabel, t.strLabel.Through, []string{t.strLabel.From, t.strLabel.To}},
		{&b.tr, t.tr.Name, []string{t.tr.Key, tc["text"], tc["plural form"], tc["is pre translated"], tc["provider"], tc["language"], tc["user"], tc["updated"]}},
		{&b.strTr, t.strTr.Through, []string{t.strTr.From, t.strTr.To}},
		{&b.summary, t.summary.Name, sumCols},
	} {
		if *x.dst, err = w.newBatch(x.table, x.cols); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// add adds a row to bt, sending the batch when it is full.
func (b *batchWriter) add(ctx context.Context, bt *batch, vals ...any) error {
	for _, v := range vals {
		a, err := b.w.arg(v)
		if err != nil {
			return err
		}
		bt.vals = append(bt.vals, a)
	}
	if len(bt.vals) >= bt.max*len(bt.cols) {
		return b.send(ctx, bt)
	}
	return nil
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
			bt.full = b.w.insertRows(bt.table, bt.cols, n)
			if bt.stmt, err = b.tx.PrepareContext(ctx, bt.full); err != nil {
				return fmt.Errorf("platform: preparing an insert of %d rows into %s: %w", n, bt.table, err)
			}
		}
		_, err = bt.stmt.ExecContext(ctx, bt.vals...)
	} else {
		_, err = b.tx.ExecContext(ctx, b.w.insertRows(bt.table, bt.cols, n), bt.vals...)
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
	id := b.g.str
	typ, text := sourceText(s)
	var maxLen any
	if s.MaxLength != nil {
		maxLen = int64(*s.MaxLength)
	}
	hidden := s.IsHidden != nil && *s.IsHidden
	if err := b.add(ctx, b.str, id, typ, text, s.Identifier, s.Context, maxLen, hidden, false, false, fileID, nil, b.now, nil); err != nil {
		return err
	}
	if err := b.linkLabels(ctx, id, labelSet(s.Labels)); err != nil {
		return err
	}
	for _, l := range b.w.storedLanguages(s) {
		if err := b.replace(ctx, replacement{id: id, plural: s.HasPlurals, fresh: true, lang: l, tr: s.Translations[l]}); err != nil {
			return err
		}
	}
	return nil
}

// linkLabels links string id to the labels titled titles (found or
// created).
func (b *batchWriter) linkLabels(ctx context.Context, id int64, titles []string) error {
	for _, l := range titles {
		lid, err := b.label(ctx, l)
		if err != nil {
			return err
		}
		if err := b.add(ctx, b.strLabel, id, lid); err != nil {
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
	var id int64
	err := b.tx.QueryRowContext(ctx, "SELECT "+w.d.Quote(t.label.Key)+" FROM "+w.d.Quote(t.label.Name)+" WHERE "+w.d.Quote(t.label.Columns["title"])+" = "+w.ph(1), title).Scan(&id)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if err != nil {
		b.g.label++
		id = b.g.label
		if err := w.insert(ctx, b.tx, t.label.Name, []string{t.label.Key, t.label.Columns["title"], t.label.Columns["is system"]}, []any{id, title, false}); err != nil {
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
	t, w := b.t, b.w
	list, args := w.in(1, ids)
	rows, err := b.tx.QueryContext(ctx, "SELECT "+w.d.Quote(t.summaryFK)+", "+w.d.Quote(mapping.OrdinalColumn)+", COALESCE("+w.d.Quote(t.summary.Columns["language"])+", '') FROM "+w.d.Quote(t.summary.Name)+
		" WHERE "+w.d.Quote(t.summaryFK)+" IN ("+list+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64][]ordinal, len(ids))
	for rows.Next() {
		var id int64
		var o ordinal
		if err := rows.Scan(&id, &o.n, &o.lang); err != nil {
			return nil, err
		}
		out[id] = append(out[id], o)
	}
	return out, rows.Err()
}

// dropTranslations removes the translations of the strings ids into
// their languages langs with their votes and approvals, and their
// languages-summary elements of those languages.
func (b *batchWriter) dropTranslations(ctx context.Context, ids []int64, langs map[int64][]string) error {
	t, w := b.t, b.w
	// All the strings' translations, the languages picked here: a filter
	// on the language in SQL lets an engine without statistics (SQLite)
	// walk every translation of the language.
	list, args := w.in(1, ids)
	rows, err := b.tx.QueryContext(ctx, "SELECT j."+w.d.Quote(t.strTr.From)+", tr."+w.d.Quote(t.tr.Key)+", tr."+w.d.Quote(t.tr.Columns["language"])+" FROM "+w.d.Quote(t.strTr.Through)+" AS j JOIN "+w.d.Quote(t.tr.Name)+" AS tr ON tr."+w.d.Quote(t.tr.Key)+" = j."+w.d.Quote(t.strTr.To)+
		" WHERE j."+w.d.Quote(t.strTr.From)+" IN ("+list+")", args...)
	if err != nil {
		return err
	}
	var trs []int64
	for rows.Next() {
		var id, tr int64
		var l string
		if err := rows.Scan(&id, &tr, &l); err != nil {
			rows.Close()
			return err
		}
		for _, want := range langs[id] {
			if l == want {
				trs = append(trs, tr)
				break
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for len(trs) > 0 {
		n := min(len(trs), chunk)
		trList, trArgs := w.in(1, trs[:n])
		trs = trs[n:]
		for _, va := range t.votesApprovals {
			if err := w.exec(ctx, b.tx, "DELETE FROM "+va+" IN ("+trList+")", trArgs...); err != nil {
				return err
			}
		}
		// The links by translation alone (a translation belongs to one
		// string): with the strings' ids too, SQLite would seek its key
		// (string, translation) for every pair of the two lists.
		if err := w.exec(ctx, b.tx, "DELETE FROM "+w.d.Quote(t.strTr.Through)+" WHERE "+w.d.Quote(t.strTr.To)+" IN ("+trList+")", trArgs...); err != nil {
			return err
		}
		if err := w.exec(ctx, b.tx, "DELETE FROM "+w.d.Quote(t.tr.Name)+" WHERE "+w.d.Quote(t.tr.Key)+" IN ("+trList+")", trArgs...); err != nil {
			return err
		}
	}
	// The summary elements, a statement per language. COALESCE keeps the
	// language's index out of the plan (the column is NOT NULL): SQLite,
	// without statistics, would walk every summary of the language
	// instead of the strings' few.
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
		list, args := w.in(1, byLang[l])
		if err := w.exec(ctx, b.tx, "DELETE FROM "+w.d.Quote(t.summary.Name)+" WHERE "+w.d.Quote(t.summaryFK)+" IN ("+list+") AND COALESCE("+w.d.Quote(t.summary.Columns["language"])+", '') = "+w.ph(len(byLang[l])+1), append(args, l)...); err != nil {
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
		kept := os[:0]
		for _, o := range os {
			if o.lang != r.lang {
				kept = append(kept, o)
			}
		}
		ords[r.id] = kept
	}
	forms := map[string]string{"none": r.tr.Text.Plain}
	if r.plural {
		forms = r.tr.Text.Plural
	}
	keys := sortedKeys(forms)
	translated, approved := 0, 0
	for _, k := range keys {
		status := postimport.StatusTranslated
		if st := r.tr.Status; st != nil {
			if st.IsPlural() {
				if v, ok := st.Plural[k]; ok {
					status = v
				}
			} else if st.Plain != "" {
				status = st.Plain
			}
		}
		if status == postimport.StatusUntranslated {
			continue
		}
		translated++
		if status == postimport.StatusApproved {
			approved++
		}
		b.g.tr++
		if err := b.add(ctx, b.tr, b.g.tr, forms[k], k, false, nil, r.lang, int64(0), b.now); err != nil {
			return err
		}
		if err := b.add(ctx, b.strTr, r.id, b.g.tr); err != nil {
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
	vals := make([]any, 0, 2+len(b.summaryFields))
	vals = append(vals, r.id, ord)
	for _, f := range b.summaryFields {
		var v any
		switch f {
		case "language":
			v = r.lang
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
		vals = append(vals, v)
	}
	return b.add(ctx, b.summary, vals...)
}
