package server

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/croql/croql"
	"github.com/croql/croql/compile"
	"github.com/croql/croql/schema"
)

// The translations list answers one object per string, as the platform's
// clients model it (PlainLanguageTranslation, PluralLanguageTranslation
// with plurals[], IcuLanguageTranslation): each string's top translation
// in the language, or for a plural string the top translation of each
// plural form.
//
// Which translation is the top one (docs/serve.md, "Which translation
// per string"): the clients model one translationId per string (per
// plural form), the Go client points to OTA delivery for the same
// translations, and approvedOnly, minApprovalCount and passedWorkflow are
// the export settings of the same names; so croql serve takes what an
// export would: among the translations the croql and the parameters keep,
// an approved one (any approval) before one without, then the most
// recently updated, then the highest id.

// pluralOrder is the order of plural forms in plurals[] (CLDR's).
var pluralOrder = []string{"zero", "one", "two", "few", "many", "other"}

type trRow struct {
	id, stringID, user, approvals int64
	hasString                     bool
	text, form                    string
	updated, added                any // API datetimes
}

// trBase is what every strategy of a translations list shares: the
// rows' SELECT, the page's condition and the total's.
type trBase struct {
	sel               string
	where, totalWhere []string
	args, totalArgs   []any
	stringID          string
	// filed is the column that holds stringId on the row (resource.filed)
	// where the total counts from it, else "".
	filed               string
	flt                 listFilters
	inStringOrder, desc bool
}

// planTranslations chooses how a translations list is answered: on a
// sharded engine every match is read and filed under its string in Go
// (trSharded); in string order (the default, or orderBy stringId) the
// page's strings are found first, from the resident snapshot when there
// is one, and only their translations read (trByString); in another
// order every string's choice is needed first (trAll). The filter
// parameters are read before the croql's condition is compiled. sharded
// chooses the sharded engine's strategy (the endpoint asks the dialect,
// isSharded); any engine can run it.
func (s *Server) planTranslations(req *listRequest, sharded bool) (plan, *httpError) {
	flt, e := req.filters()
	if e != nil {
		return nil, e
	}
	orderBy := req.params.orderBy
	b := &trBase{flt: flt, stringID: req.res.sqlOf("stringId"),
		inStringOrder: len(orderBy) == 0 || len(orderBy) == 1 && orderBy[0].col.json == "stringId",
		desc:          len(orderBy) == 1 && orderBy[0].desc}
	if sharded {
		var strWhere []string
		var strArgs []any
		if len(flt.strs) > 0 {
			if strWhere, strArgs, e = s.compileParams(req.p, croql.Strings, flt.strs, 0, compile.Page); e != nil {
				return nil, e
			}
		}
		if b.where, b.args, e = s.trWhere(req, b, false, compile.Page); e != nil {
			return nil, e
		}
		// Read with the key in stringId's place: shardedRows puts each
		// row's string in (see vitess.go).
		b.stringID = req.res.key
		b.sel = s.trSelect(req, b.stringID)
		return &trSharded{trBase: b, strWhere: strWhere, strArgs: strArgs}, nil
	}
	if f := req.res.filed; f != "" {
		// The string each translation is filed under is kept on its row.
		b.stringID = f
	}
	if b.where, b.args, e = s.trWhere(req, b, true, compile.Page); e != nil {
		return nil, e
	}
	b.filed = req.res.filed
	if req.params.withTotal {
		// The total counts the strings from the translations' side, by
		// the string kept on each row, where the mapping keeps it.
		tb := b
		if b.filed != "" {
			tb = &trBase{stringID: b.filed, flt: flt}
		}
		if b.totalWhere, b.totalArgs, e = s.trWhere(req, tb, true, compile.WholeSet); e != nil {
			return nil, e
		}
	}
	b.sel = s.trSelect(req, b.stringID)
	if !b.inStringOrder {
		return &trAll{b}, nil
	}
	return &trByString{b}, nil
}

// trWhere is the condition of the translations list compiled for
// purpose: the croql's and the filter parameters', the string filters and
// ids (withStrings; a sharded engine applies them apart) and the
// language.
func (s *Server) trWhere(req *listRequest, b *trBase, withStrings bool, purpose compile.Purpose) ([]string, []any, *httpError) {
	where, args, e := s.rowsWhere(req, purpose)
	if e != nil {
		return nil, nil, e
	}
	d := req.p.Dialect()
	if len(b.flt.strs) > 0 && withStrings {
		sw, sargs, e := s.compileParams(req.p, croql.Strings, b.flt.strs, len(args), purpose)
		if e != nil {
			return nil, nil, e
		}
		sres, err := s.resource(d, croql.Strings)
		if err != nil {
			return nil, nil, s.internal(req.r, err)
		}
		where = append(where, b.stringID+" IN (SELECT "+sres.key+" FROM "+sres.table+" WHERE "+strings.Join(sw, " AND ")+")")
		args = append(args, sargs...)
	}
	if len(b.flt.stringIDs) > 0 && withStrings {
		var in string
		in, args = compile.KeyList(d, args, b.flt.stringIDs)
		where = append(where, b.stringID+" IN ("+in+")")
	}
	args = append(args, req.lang)
	where = append(where, req.res.language+" = "+d.Param(len(args), schema.String))
	return where, args, nil
}

// trSelect is the SELECT of the translations list's rows (trRow's
// fields, stringID the expression of the string), over the mapping.
func (s *Server) trSelect(req *listRequest, stringID string) string {
	d, res := req.p.Dialect(), req.res
	approvals, added := "0", "NULL" // NULL: a mapping that does not store when a translation was added
	if t, err := s.tables(d); err == nil {
		approvals = "(SELECT COUNT(*) FROM " + d.Quote(t.TrApprovals.Table) + " AS a WHERE a." + d.Quote(t.TrApprovals.Child.FK) + " = " + res.key + t.TrApprovalsShard + ")"
		if t.TrAdded != "" {
			added = alias + "." + d.Quote(t.TrAdded)
		}
	}
	return "SELECT " + strings.Join([]string{res.key, stringID, res.sqlOf("text"), res.sqlOf("pluralCategoryName"),
		res.sqlOf("userId"), res.sqlOf("updatedAt"), approvals, added}, ", ") + " FROM " + res.table
}

// trRead is what a strategy read: the rows, the types of their strings,
// the total, and whether the snapshot found the page (sn).
type trRead struct {
	rows  []trRow
	types map[int64]string
	total int64
	sn    *snapshot
}

// finish groups the rows into one object per string, orders them and
// pages them (in string order they are the page already).
func (b *trBase) finish(s *Server, req *listRequest, rd *trRead) any {
	objs := groupTranslations(req.p, rd.rows, rd.types)
	sortObjects(objs, req.params.orderBy, "stringId")
	for _, o := range objs {
		if _, ok := o["plurals"]; ok {
			delete(o, "translationId")
			delete(o, "text")
			delete(o, "createdAt")
		}
	}
	if rd.sn != nil {
		s.resident.served.Add(1)
	}
	if !b.inStringOrder {
		return pageOf(objs, req.params)
	}
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = item{o}
	}
	return listBody(out, req.params, rd.total)
}

// trAll reads every matching translation in string order and pages in Go
// (an order other than the strings').
type trAll struct{ *trBase }

func (pl *trAll) run(s *Server, req *listRequest) (any, *httpError) {
	ctx, cancel := s.timeout(req)
	defer cancel()
	rd := &trRead{types: map[int64]string{}}
	err := s.cfg.Storage.ReadTx(ctx, req.p, func(tx *sql.Tx) error {
		var err error
		// Every string's rows are needed to order them: no page budget
		// while reading (writeBody bounds the answer).
		if rd.rows, err = readTranslations(ctx, tx, pl.sel+whereClause(pl.where)+" ORDER BY 2, 1", pl.args, &pageBytes{}); err != nil {
			return err
		}
		return s.stringTypes(ctx, tx, req.p, rd.rows, rd.types)
	})
	if err != nil {
		return nil, s.dbErrorOn(req, ctx, err)
	}
	return pl.finish(s, req, rd), nil
}

// trSharded is the translations list on a sharded engine (shardedRows).
type trSharded struct {
	*trBase
	strWhere []string
	strArgs  []any
}

func (pl *trSharded) run(s *Server, req *listRequest) (any, *httpError) {
	ctx, cancel := s.timeout(req)
	defer cancel()
	params := req.params
	rd := &trRead{types: map[int64]string{}}
	err := s.cfg.Storage.ReadTx(ctx, req.p, func(tx *sql.Tx) error {
		var err error
		rd.rows, rd.total, err = s.shardedRows(ctx, tx, req.p.Dialect(), pl.sel+whereClause(pl.where), pl.args, shardedPage{
			strWhere: pl.strWhere, strArgs: pl.strArgs, stringIDs: pl.flt.stringIDs,
			paged: pl.inStringOrder, desc: pl.desc,
			limit: params.limit, offset: params.offset,
			keyset: params.keyset, afterID: params.afterID,
		})
		if err != nil {
			return err
		}
		return s.stringTypes(ctx, tx, req.p, rd.rows, rd.types)
	})
	if err != nil {
		return nil, s.dbErrorOn(req, ctx, err)
	}
	return pl.finish(s, req, rd), nil
}

// trByString is the translations list in string order: the page's
// strings (and the total) are found first, from the resident snapshot
// when it can (residentTranslationPage) or in SQL, then only their
// translations are read, in the page's order, within the page's byte
// budget.
type trByString struct{ *trBase }

func (pl *trByString) run(s *Server, req *listRequest) (any, *httpError) {
	ctx, cancel := s.timeout(req)
	defer cancel()
	rd, err := pl.read(ctx, s, req, true)
	if err == nil && rd.sn != nil && rd.sn.version != req.p.version.Load() {
		// The project changed under the snapshot: the database
		// answers (the snapshot is gone now).
		rd, err = pl.read(ctx, s, req, false)
	}
	if err != nil {
		return nil, s.dbErrorOn(req, ctx, err)
	}
	return pl.finish(s, req, rd), nil
}

// read reads the page (from the snapshot's page of strings when
// fromSnapshot and it has one).
func (pl *trByString) read(ctx context.Context, s *Server, req *listRequest, fromSnapshot bool) (*trRead, error) {
	rd := &trRead{types: map[int64]string{}}
	var page, tids []int64
	if fromSnapshot {
		var ok bool
		var sn *snapshot
		if page, tids, rd.total, sn, ok = s.residentTranslationPage(ctx, req.p, req.params, pl.flt, req.lang, pl.desc); ok {
			rd.sn = sn
		}
	}
	err := s.cfg.Storage.ReadTx(ctx, req.p, func(tx *sql.Tx) error {
		if rd.sn == nil {
			var err error
			if page, rd.total, err = pl.stringPage(ctx, tx, req, rd.types); err != nil {
				return err
			}
		}
		if len(page) == 0 {
			return nil
		}
		d := req.p.Dialect()
		w := append(slices.Clone(pl.where), pl.stringID+" IS NOT NULL")
		in, a := compile.KeyList(d, slices.Clone(pl.args), page)
		w = append(w, pl.stringID+" IN ("+in+")")
		switch wk := req.res.walk; {
		case rd.sn != nil:
			// By key: the string id is a subquery per row.
			in, a = compile.KeyList(d, a, tids)
			w = append(w, req.res.key+" IN ("+in+")")
		case wk != nil:
			// The translations the page's strings list, by the join table.
			in, a = compile.KeyList(d, a, page)
			w = append(w, req.res.key+" IN (SELECT pj."+wk.to+" FROM "+wk.join+" AS pj WHERE pj."+wk.from+" IN ("+in+"))")
		}
		order := " ORDER BY 2, 1"
		if pl.desc {
			order = " ORDER BY 2 DESC, 1"
		}
		// The rows come in the page's order and stop once their texts
		// pass the page's byte budget.
		var err error
		if rd.rows, err = readTranslations(ctx, tx, pl.sel+whereClause(w)+order, a, &pageBytes{max: s.cfg.MaxPageBytes}); err != nil {
			return err
		}
		return s.stringTypes(ctx, tx, req.p, rd.rows, rd.types)
	})
	return rd, err
}

// stringPage finds the page's strings in SQL (after afterId with keyset
// paging), and their total with withTotal. Where the mapping lists
// strings' translations in a join table, it walks the strings in id
// order by their key and asks of each whether a translation the
// condition keeps is filed under it (walkStrings): a first page reads
// about as many strings as it needs, and their types with them (into
// types: no statement more for them). Otherwise it finds the distinct
// string of every matching translation. The total counts the distinct
// strings of the matching translations, by the column that keeps each
// one's string (pl.filed) where the mapping has it, else as the page
// walks them.
func (pl *trByString) stringPage(ctx context.Context, tx *sql.Tx, req *listRequest, types map[int64]string) ([]int64, int64, error) {
	d, params := req.p.Dialect(), req.params
	dir := ""
	if pl.desc {
		dir = " DESC"
	}
	var q string
	var pa []any
	typed := false
	if wk := req.res.walk; wk != nil {
		var w []string
		w, pa = pl.walkStrings(req, wk, pl.where, pl.args, true)
		w, pa = pl.onlyStrings(d, wk, w, pa)
		if params.keyset {
			pa = append(pa, params.afterID)
			w = append(w, "ps."+wk.key+" > "+d.Param(len(pa), schema.Int))
		}
		q = "SELECT ps." + wk.key + ", ps." + wk.typ + " FROM " + wk.strings + " AS ps" + whereClause(w) + " ORDER BY 1" + dir
		typed = true
	} else {
		w := append(slices.Clone(pl.where), pl.stringID+" IS NOT NULL")
		pa = slices.Clone(pl.args)
		if params.keyset {
			pa = append(pa, params.afterID)
			w = append(w, pl.stringID+" > "+d.Param(len(pa), schema.Int))
		}
		q = "SELECT DISTINCT " + pl.stringID + " FROM " + req.res.table + whereClause(w) + " ORDER BY 1" + dir
	}
	pa = append(pa, params.limit, params.offset)
	q += d.Limit(d.Param(len(pa)-1, schema.Int)) + " OFFSET " + d.Param(len(pa), schema.Int)
	if !typed {
		types = nil
	}
	page, err := scanTypedIDs(ctx, tx, q, pa, types)
	if err != nil || !params.withTotal {
		return page, 0, err
	}
	var total int64
	if fc := req.res.filedCount; fc != "" && len(pl.totalWhere) == 1 {
		// Nothing but the language selects the translations (the last
		// condition, trWhere's): the count the store keeps for it.
		err = tx.QueryRowContext(ctx, fc, req.lang).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			total, err = 0, nil
		}
	} else if wk := req.res.walk; wk != nil && pl.filed == "" {
		w, ta := pl.walkStrings(req, wk, pl.totalWhere, pl.totalArgs, false)
		w, ta = pl.onlyStrings(d, wk, w, ta)
		q = "SELECT COUNT(*) FROM " + wk.strings + " AS ps" + whereClause(w)
		err = tx.QueryRowContext(ctx, q, ta...).Scan(&total)
	} else {
		col := cmp.Or(pl.filed, pl.stringID)
		q = "SELECT COUNT(DISTINCT " + col + ") FROM " + req.res.table + whereClause(append(slices.Clone(pl.totalWhere), col+" IS NOT NULL"))
		err = tx.QueryRowContext(ctx, q, pl.totalArgs...).Scan(&total)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("server: counting: %w", err)
	}
	return page, total, nil
}

// walkStrings is the condition on a string (alias ps) that a translation
// of the list's condition where (args) is filed under it: one of the
// translations the join table lists for it that where keeps and whose
// string is this one. For a page (page) the subquery ends in LIMIT 1
// OFFSET 0: PostgreSQL then asks it of each string in turn, as the walk
// needs, instead of turning it into a semi-join that reads every
// translation of the language first; a count is better served by the
// semi-join.
func (pl *trByString) walkStrings(req *listRequest, wk *strWalk, where []string, args []any, page bool) ([]string, []any) {
	tail := ""
	if page {
		tail = req.p.Dialect().Limit("1") + " OFFSET 0"
	}
	if pl.filed != "" {
		// The kept string is one that lists the translation.
		w := append(slices.Clone(where), pl.filed+" = ps."+wk.key)
		return []string{"EXISTS (SELECT 1 FROM " + req.res.table + whereClause(w) + tail + ")"}, slices.Clone(args)
	}
	w := append(slices.Clone(where), "pj."+wk.from+" = ps."+wk.key, pl.stringID+" = ps."+wk.key)
	return []string{"EXISTS (SELECT 1 FROM " + wk.join + " AS pj JOIN " + req.res.table + " ON " + req.res.key + " = pj." + wk.to +
		whereClause(w) + tail + ")"}, slices.Clone(args)
}

// onlyStrings adds to the walk's condition w (args) that the string is
// one of the stringIds parameter's: the walk then visits those strings
// alone, by the strings' key, instead of asking every string of the
// project whether one of its translations is filed under one of them.
func (pl *trByString) onlyStrings(d compile.Dialect, wk *strWalk, w []string, args []any) ([]string, []any) {
	if len(pl.flt.stringIDs) == 0 {
		return w, args
	}
	in, args := compile.KeyList(d, args, pl.flt.stringIDs)
	return append(w, "ps."+wk.key+" IN ("+in+")"), args
}

// scanIDs runs a query of one integer column.
func scanIDs(ctx context.Context, tx *sql.Tx, q string, args []any) ([]int64, error) {
	return scanTypedIDs(ctx, tx, q, args, nil)
}

// scanTypedIDs runs a query of an integer column, and, when types is not
// nil, of strings' types beside their ids, which it sets in types.
func scanTypedIDs(ctx context.Context, tx *sql.Tx, q string, args []any, types map[int64]string) ([]int64, error) {
	rs, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("server: query: %w", err)
	}
	defer rs.Close()
	var out []int64
	var v any
	var typ sql.NullString
	dest := []any{&v}
	if types != nil {
		dest = append(dest, &typ)
	}
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
		n, _ := toInt(v)
		out = append(out, n)
		if types != nil {
			types[n] = typ.String
		}
	}
	return out, rs.Err()
}

// readTranslations reads the rows of query, in string order, counting
// their texts against budget: past it, the error says how many strings
// were read whole before the row that passed it.
func readTranslations(ctx context.Context, tx *sql.Tx, query string, args []any, budget *pageBytes) ([]trRow, error) {
	rs, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("server: query: %w", err)
	}
	defer rs.Close()
	var out []trRow
	// The columns of trSelect, in its order.
	var id, stringID, text, form, user, updated, approvals, added any
	ptrs := []any{&id, &stringID, &text, &form, &user, &updated, &approvals, &added}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
		var t trRow
		t.id, _ = toInt(id)
		t.stringID, t.hasString = toInt(stringID)
		if err := budget.add([]any{text}); err != nil {
			return nil, &pageBudgetError{fit: wholeStrings(out, t.stringID)}
		}
		t.text, _ = value(column{kind: kString}, text).(string)
		t.form, _ = value(column{kind: kString}, form).(string)
		t.user, _ = toInt(user)
		t.updated = value(column{kind: kTime, nullable: true}, updated)
		t.approvals, _ = toInt(approvals)
		t.added = value(column{kind: kTime, nullable: true}, added)
		if t.added == nil {
			t.added = t.updated
		}
		if stringID != nil && t.hasString {
			out = append(out, t)
		}
	}
	return out, rs.Err()
}

// stringTypes reads the stored type of the strings rows belong to, those
// types does not hold already.
func (s *Server) stringTypes(ctx context.Context, tx *sql.Tx, p *Project, rows []trRow, types map[int64]string) error {
	if len(rows) == 0 {
		return nil
	}
	res, err := s.resource(p.Dialect(), croql.Strings)
	if err != nil {
		return err
	}
	typeCol := res.sqlOf("type")
	var ids []int64
	for i, r := range rows {
		if _, known := types[r.stringID]; !known && (i == 0 || r.stringID != rows[i-1].stringID) {
			ids = append(ids, r.stringID)
		}
	}
	d := p.Dialect()
	for len(ids) > 0 {
		ph, args := inChunk(d, &ids)
		rs, err := tx.QueryContext(ctx, "SELECT "+res.key+", "+typeCol+" FROM "+res.table+" WHERE "+res.key+" IN ("+ph+")", args...)
		if err != nil {
			return fmt.Errorf("server: string types: %w", err)
		}
		for rs.Next() {
			var id int64
			var typ string
			if err := rs.Scan(&id, &typ); err != nil {
				rs.Close()
				return fmt.Errorf("server: string types: %w", err)
			}
			types[id] = typ
		}
		if err := errors.Join(rs.Err(), rs.Close()); err != nil {
			return fmt.Errorf("server: string types: %w", err)
		}
	}
	return nil
}

// better reports whether a is the top translation before b.
func better(a, b trRow) bool {
	if (a.approvals > 0) != (b.approvals > 0) {
		return a.approvals > 0
	}
	if c := compareValues(a.updated, b.updated); c != 0 {
		return c > 0
	}
	return a.id > b.id
}

// groupTranslations builds one object per string from rows (ordered by
// string id).
func groupTranslations(p *Project, rows []trRow, types map[int64]string) []map[string]any {
	var out []map[string]any
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].stringID == rows[i].stringID {
			j++
		}
		group := rows[i:j]
		i = j
		sid := group[0].stringID
		o := map[string]any{"stringId": sid, "contentType": "text/plain"}
		if types[sid] == "plural" {
			top := map[string]trRow{}
			for _, t := range group {
				if cur, ok := top[t.form]; !ok || better(t, cur) {
					top[t.form] = t
				}
			}
			forms := make([]string, 0, len(top))
			for f := range top {
				forms = append(forms, f)
			}
			slices.SortFunc(forms, func(a, b string) int {
				ia, ib := slices.Index(pluralOrder, a), slices.Index(pluralOrder, b)
				if ia != ib {
					return ia - ib
				}
				return strings.Compare(a, b)
			})
			plurals := make([]any, 0, len(forms))
			for _, f := range forms {
				t := top[f]
				plurals = append(plurals, map[string]any{"translationId": t.id, "text": t.text, "pluralForm": f,
					"user": userShape(p, t.user), "createdAt": t.added})
			}
			o["plurals"] = plurals
			// The first form's values order the list; they are removed
			// before the answer is written.
			first := top[forms[0]]
			o["translationId"], o["text"], o["createdAt"] = first.id, first.text, first.added
			out = append(out, o)
			continue
		}
		top := group[0]
		for _, t := range group[1:] {
			if better(t, top) {
				top = t
			}
		}
		o["translationId"], o["text"], o["user"], o["createdAt"] = top.id, top.text, userShape(p, top.user), top.added
		out = append(out, o)
	}
	return out
}

// wholeStrings is how many strings rows holds whole, the rows of next
// (the string being read) left out.
func wholeStrings(rows []trRow, next int64) int {
	n := 0
	for i, r := range rows {
		if r.stringID != next && (i == 0 || rows[i-1].stringID != r.stringID) {
			n++
		}
	}
	return n
}
