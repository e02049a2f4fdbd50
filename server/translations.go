package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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

// listTranslations serves GET (and POST …/query) of
// /projects/{projectId}/languages/{languageId}/translations.
func (s *Server) listTranslations(body bool) func(*http.Request) (any, *httpError) {
	return func(r *http.Request) (any, *httpError) {
		p, e := s.project(r, "projectId", "Project")
		if e != nil {
			return nil, e
		}
		lang := r.PathValue("languageId")
		if !p.HasLanguage(lang) || p.Dialect().CheckString(lang) != nil {
			return nil, notFound("Language")
		}
		res, err := s.resource(p.Dialect(), croql.Translations)
		if err != nil {
			return nil, s.internal(r, err)
		}
		params, e := s.params(r, orderRes("stringId", "translationId", "text", "createdAt"), body)
		if e != nil {
			return nil, e
		}
		var q url.Values
		if !body {
			q = r.URL.Query()
		}
		d := p.Dialect()
		stringID := res.cols[1].sql
		sharded := isSharded(d)
		flt, e := filters(p, croql.Translations, q, strings.TrimSpace(params.croql) != "")
		if e != nil {
			return nil, e
		}
		var strWhere []string // sharded: the string filters, run apart
		var strArgs []any
		if len(flt.strs) > 0 && sharded {
			if strWhere, strArgs, e = s.compileParams(p, croql.Strings, flt.strs, 0, compile.Page); e != nil {
				return nil, e
			}
		}
		// build is the condition compiled for purpose: the page's in the
		// forms an engine stops early on, the total's in the forms
		// fastest over every match. On a sharded engine the string
		// filters and ids are applied apart (shardedRows).
		build := func(purpose compile.Purpose) ([]string, []any, *httpError) {
			where, args, e := s.compile(r, p, croql.Translations, params.croql, purpose)
			if e != nil {
				return nil, nil, e
			}
			extra, extraArgs, e := s.compileParams(p, croql.Translations, flt.root, len(args), purpose)
			if e != nil {
				return nil, nil, e
			}
			where, args = append(where, extra...), append(args, extraArgs...)
			if len(flt.strs) > 0 && !sharded {
				sw, sargs, e := s.compileParams(p, croql.Strings, flt.strs, len(args), purpose)
				if e != nil {
					return nil, nil, e
				}
				sres, err := s.resource(d, croql.Strings)
				if err != nil {
					return nil, nil, s.internal(r, err)
				}
				where = append(where, stringID+" IN (SELECT "+sres.key+" FROM "+sres.table+" WHERE "+strings.Join(sw, " AND ")+")")
				args = append(args, sargs...)
			}
			if len(flt.stringIDs) > 0 && !sharded {
				ph := make([]string, len(flt.stringIDs))
				for i, id := range flt.stringIDs {
					args = append(args, id)
					ph[i] = d.Param(len(args), schema.Int)
				}
				where = append(where, stringID+" IN ("+strings.Join(ph, ", ")+")")
			}
			args = append(args, lang)
			where = append(where, res.language+" = "+d.Param(len(args), schema.String))
			return where, args, nil
		}
		where, args, e := build(compile.Page)
		if e != nil {
			return nil, e
		}
		var totalWhere []string
		var totalArgs []any
		if params.withTotal && !sharded {
			if totalWhere, totalArgs, e = build(compile.WholeSet); e != nil {
				return nil, e
			}
		}

		at, _, _ := s.tableOf("approval")
		var approvalFK string
		for _, o := range s.mapping.Catalog().Objects {
			if o.Name == "translation" {
				if t, err := s.mapping.Table(o); err == nil && t.Children["approvals"] != nil {
					approvalFK = t.Children["approvals"].FK
				}
			}
		}
		approvals := "0"
		if at != "" && approvalFK != "" {
			approvals = "(SELECT COUNT(*) FROM " + d.Quote(at) + " AS a WHERE a." + d.Quote(approvalFK) + " = " + res.key + ")"
		}
		added := "NULL" // a mapping that does not store when a translation was added
		if tt := s.mapping.Tables["translation"]; tt != nil && tt.Stored["Added"] != "" {
			added = alias + "." + d.Quote(tt.Stored["Added"])
		}
		col := func(json string) string {
			for _, c := range res.cols {
				if c.json == json {
					return c.sql
				}
			}
			return "NULL"
		}
		if sharded {
			// Read with the key in stringId's place: shardedRows puts
			// each row's string in (see vitess.go).
			stringID = res.key
		}
		sel := "SELECT " + strings.Join([]string{res.key, stringID, col("text"), col("pluralCategoryName"), col("userId"),
			col("updatedAt"), approvals, added}, ", ") + " FROM " + res.table
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		// In string order (the default, or orderBy stringId) the page's
		// strings are found in SQL and only their translations read;
		// another order needs every string's choice first.
		inStringOrder := len(params.orderBy) == 0 || len(params.orderBy) == 1 && params.orderBy[0].col.json == "stringId"
		var rows []trRow
		var page []int64
		var total int64
		desc := len(params.orderBy) == 1 && params.orderBy[0].desc
		// The page's strings and the total from the resident snapshot
		// when there is one; the translations read below either way.
		var sn *snapshot
		resident := false
		var types map[int64]string
		var tids []int64
		read := func(fromSnapshot bool) error {
			rows, page, total, resident, types = nil, nil, 0, false, map[int64]string{}
			if inStringOrder && fromSnapshot && !sharded {
				page, tids, total, sn, resident = s.residentTranslationPage(ctx, p, params, flt, lang, desc)
			}
			return s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
				if sharded {
					var err error
					rows, total, err = s.shardedRows(ctx, tx, d, sel+whereClause(where), args, shardedPage{
						strWhere: strWhere, strArgs: strArgs, stringIDs: flt.stringIDs,
						paged: inStringOrder, desc: desc,
						limit: params.limit, offset: params.offset,
						keyset: params.keyset, afterID: params.afterID,
					})
					if err != nil {
						return err
					}
					return s.stringTypes(ctx, tx, p, rows, types)
				}
				w, a := where, args
				if inStringOrder {
					w = append(slices.Clone(where), stringID+" IS NOT NULL")
					dir := ""
					if desc {
						dir = " DESC"
					}
					pw, pa := w, slices.Clone(args)
					if params.keyset {
						// Keyset paging: the strings after afterId.
						pa = append(pa, params.afterID)
						pw = append(slices.Clone(w), stringID+" > "+d.Param(len(pa), schema.Int))
					}
					pa = append(pa, params.limit, params.offset)
					q := "SELECT DISTINCT " + stringID + " FROM " + res.table + whereClause(pw) + " ORDER BY 1" + dir +
						d.Limit(d.Param(len(pa)-1, schema.Int)) + " OFFSET " + d.Param(len(pa), schema.Int)
					if !resident { // else from the snapshot
						var err error
						if page, err = scanIDs(ctx, tx, q, pa); err != nil {
							return err
						}
					}
					if params.withTotal && !resident {
						q := "SELECT COUNT(DISTINCT " + stringID + ") FROM " + res.table + whereClause(append(totalWhere, stringID+" IS NOT NULL"))
						if err := tx.QueryRowContext(ctx, q, totalArgs...).Scan(&total); err != nil {
							return fmt.Errorf("server: counting: %w", err)
						}
					}
					if len(page) == 0 {
						return nil
					}
					a = slices.Clone(args)
					ph := make([]string, len(page))
					for i, id := range page {
						a = append(a, id)
						ph[i] = d.Param(len(a), schema.Int)
					}
					w = append(w, stringID+" IN ("+strings.Join(ph, ", ")+")")
					if resident {
						// By key: the string id is a subquery per row.
						ph = make([]string, len(tids))
						for i, id := range tids {
							a = append(a, id)
							ph[i] = d.Param(len(a), schema.Int)
						}
						w = append(w, res.key+" IN ("+strings.Join(ph, ", ")+")")
					}
				}
				var err error
				// In string order the rows come in the page's order and
				// stop once their texts pass the page's byte budget; in
				// another, every string's rows are needed to order them.
				order, budget := " ORDER BY 2, 1", pageBytes{}
				if inStringOrder {
					budget.max = s.cfg.MaxPageBytes
					if len(params.orderBy) == 1 && params.orderBy[0].desc {
						order = " ORDER BY 2 DESC, 1"
					}
				}
				if rows, err = readTranslations(ctx, tx, sel+whereClause(w)+order, a, &budget); err != nil {
					return err
				}
				return s.stringTypes(ctx, tx, p, rows, types)
			})
		}
		err = read(true)
		if err == nil && resident && sn.version != p.version.Load() {
			// The project changed under the snapshot: the database
			// answers (the snapshot is gone now).
			err = read(false)
		}
		if err != nil {
			return nil, s.dbErrorOn(p, r, ctx, params.croql, err)
		}
		if resident {
			s.resident.served.Add(1)
		}
		objs := groupTranslations(p, rows, types)
		sortObjects(objs, params.orderBy, "stringId")
		for _, o := range objs {
			if _, ok := o["plurals"]; ok {
				delete(o, "translationId")
				delete(o, "text")
				delete(o, "createdAt")
			}
		}
		if !inStringOrder {
			return pageOf(objs, params), nil
		}
		out := make([]any, len(objs))
		for i, o := range objs {
			out[i] = item{o}
		}
		return listBody(out, params, total), nil
	}
}

// scanIDs runs a query of one integer column.
func scanIDs(ctx context.Context, tx *sql.Tx, q string, args []any) ([]int64, error) {
	rs, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("server: query: %w", err)
	}
	defer rs.Close()
	var out []int64
	for rs.Next() {
		var v any
		if err := rs.Scan(&v); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
		n, _ := toInt(v)
		out = append(out, n)
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
	v := make([]any, 8)
	ptrs := make([]any, len(v))
	for i := range v {
		ptrs[i] = &v[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("server: reading rows: %w", err)
		}
		var t trRow
		t.id, _ = toInt(v[0])
		t.stringID, t.hasString = toInt(v[1])
		if err := budget.add(v[2:3]); err != nil {
			return nil, &pageBudgetError{fit: wholeStrings(out, t.stringID)}
		}
		t.text, _ = value(column{kind: kString}, v[2]).(string)
		t.form, _ = value(column{kind: kString}, v[3]).(string)
		t.user, _ = toInt(v[4])
		t.updated = value(column{kind: kTime, nullable: true}, v[5])
		t.approvals, _ = toInt(v[6])
		t.added = value(column{kind: kTime, nullable: true}, v[7])
		if t.added == nil {
			t.added = t.updated
		}
		if v[1] != nil && t.hasString {
			out = append(out, t)
		}
	}
	return out, rs.Err()
}

// stringTypes reads the stored type of the strings rows belong to.
func (s *Server) stringTypes(ctx context.Context, tx *sql.Tx, p *Project, rows []trRow, types map[int64]string) error {
	if len(rows) == 0 {
		return nil
	}
	res, err := s.resource(p.Dialect(), croql.Strings)
	if err != nil {
		return err
	}
	var typeCol string
	for _, c := range res.cols {
		if c.json == "type" {
			typeCol = c.sql
		}
	}
	var ids []int64
	for i, r := range rows {
		if i == 0 || r.stringID != rows[i-1].stringID {
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
