package server

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strings"

	"github.com/croql/croql/mapping"
	"github.com/croql/croql/schema"
)

// String translations, approvals and votes: the rows of a translation and
// of what it owns, selected by the platform's parameters.

// planStringTranslations is GET /projects/{projectId}/translations with
// stringId and languageId (both required, as on the platform),
// denormalizePlaceholders and orderBy.
func (s *Server) planStringTranslations(req *listRequest) (plan, *httpError) {
	sid, ok, e := idParam(req, "stringId")
	if e != nil {
		return nil, e
	}
	if !ok {
		return nil, invalid("stringId", "isEmpty", "stringId is required")
	}
	lang, e := stringLanguage(req, "languageId")
	if e != nil {
		return nil, e
	}
	if lang == "" {
		return nil, invalid("languageId", "isEmpty", "languageId is required")
	}
	if e := only(req.r, "denormalizePlaceholders"); e != nil {
		return nil, e
	}
	f := trFilter{stringID: sid, lang: lang}
	return pagedPlan{rq: func(p *Project) (*rowsQuery, error) { return s.stringTranslations(p, f) }}, nil
}

// getStringTranslation is GET /projects/{projectId}/translations/{translationId}.
func (s *Server) getStringTranslation(r *http.Request) (any, *httpError) {
	p, id, e := s.getParam(r, "projectId", "Project", "translationId", "Translation")
	if e != nil {
		return nil, e
	}
	if e := only(r, "denormalizePlaceholders"); e != nil {
		return nil, e
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	objs, err := s.allRows(func(p *Project) (*rowsQuery, error) { return s.stringTranslations(p, trFilter{trID: id}) })(ctx, p)
	if err != nil {
		return nil, s.dbError(r, ctx, "", err)
	}
	if len(objs) == 0 {
		return nil, notFound("Translation")
	}
	return item{objs[0]}, nil
}

// trFilter selects translations by the platform's parameters of the
// approvals and votes lists: a translation id, else a language, a
// string, a file and labels of the strings that list it.
type trFilter struct {
	trID, stringID, fileID int64
	lang                   string
	labels, exclude        []int64
}

// readTrFilter reads the parameters of the approvals (withFile) or votes
// list.
func readTrFilter(req *listRequest) (trFilter, *httpError) {
	var f trFilter
	var e *httpError
	if f.trID, _, e = idParam(req, "translationId"); e != nil {
		return f, e
	}
	if f.stringID, _, e = idParam(req, "stringId"); e != nil {
		return f, e
	}
	if f.fileID, _, e = idParam(req, "fileId"); e != nil {
		return f, e
	}
	if f.lang, e = stringLanguage(req, "languageId"); e != nil {
		return f, e
	}
	if f.labels, e = idsParam(req, "labelIds"); e != nil {
		return f, e
	}
	f.exclude, e = idsParam(req, "excludeLabelIds")
	return f, e
}

// where adds f's conditions on the translation at alias t0 to q. A
// translation id selects that translation alone (the platform ignores
// the other parameters then).
func (f trFilter) where(q *query, res *resource, t *Tables) {
	d := q.d
	if f.trID > 0 {
		q.where = append(q.where, res.key+" = "+q.arg(f.trID, schema.Int))
		return
	}
	ch := t.StrTranslations.Child
	// linked is the condition that a string listing the translation (at
	// alias j, joined to join) matches cond: the translations of the
	// join table's rows that match, which its key finds from the string.
	linked := func(join, cond string) string {
		return res.key + " IN (SELECT j." + d.Quote(ch.To) + " FROM " + d.Quote(ch.Through) + " AS j" + join + " WHERE " + cond + ")"
	}
	if f.lang != "" {
		q.where = append(q.where, res.language+" = "+q.arg(f.lang, schema.String))
	}
	if f.stringID > 0 {
		q.where = append(q.where, linked("", "j."+d.Quote(ch.From)+" = "+q.arg(f.stringID, schema.Int)))
	}
	if f.fileID > 0 {
		q.where = append(q.where, linked(" JOIN "+d.Quote(t.Str.Table())+" AS s ON s."+d.Quote(t.Str.Key())+" = j."+d.Quote(ch.From),
			"s."+d.Quote(t.StrFile)+" = "+q.arg(f.fileID, schema.Int)))
	}
	lc := t.StrLabels.Child
	labelled := func(ids []int64) string {
		return linked(" JOIN "+d.Quote(lc.Through)+" AS l ON l."+d.Quote(lc.From)+" = j."+d.Quote(ch.From), "l."+d.Quote(lc.To)+" IN ("+q.in(ids)+")")
	}
	if len(f.labels) > 0 {
		q.where = append(q.where, labelled(f.labels))
	}
	if len(f.exclude) > 0 {
		q.where = append(q.where, "NOT "+labelled(f.exclude))
	}
}

// stringTranslations is the statement of the translations f selects in
// the platform's StringTranslation shape, each with its rating (up votes
// minus down votes).
func (s *Server) stringTranslations(p *Project, f trFilter) (*rowsQuery, error) {
	d := p.Dialect()
	res, t, _, err := s.trTables(d)
	if err != nil {
		return nil, err
	}
	created := res.sqlOf("updatedAt")
	if t.TrAdded != "" {
		created = alias + "." + d.Quote(t.TrAdded)
	}
	q := &query{d: d}
	f.where(q, res, t)
	return &rowsQuery{
		sel: strings.Join([]string{res.key, res.sqlOf("text"), res.sqlOf("pluralCategoryName"), res.sqlOf("isPreTranslated"),
			res.sqlOf("provider"), res.sqlOf("userId"), created}, ", "),
		from: " FROM " + res.table, order: res.key, q: q,
		cols: []column{{json: "id", kind: kInt}, {json: "text", kind: kString}, {json: "pluralCategoryName", kind: kString},
			{json: "isPreTranslated", kind: kBool}, {json: "provider", kind: kString, nullable: true}, {json: "userId", kind: kInt},
			{json: "createdAt", kind: kTime}},
		after: func(ctx context.Context, tx *sql.Tx, objs []map[string]any) error { return s.ratings(ctx, tx, p, objs) },
		shape: func(o map[string]any) {
			if o["pluralCategoryName"] == "none" {
				o["pluralCategoryName"] = "other"
			}
			o["user"] = userShape(p, o["userId"].(int64))
			delete(o, "userId")
		},
		ints: map[string]intCol{"id": {sql: res.key}},
	}, nil
}

// ratings sets the rating of each translation of objs: its up votes
// minus its down votes.
func (s *Server) ratings(ctx context.Context, tx *sql.Tx, p *Project, objs []map[string]any) error {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return err
	}
	byID, ids := pageIndex(objs, "rating", func() any { return int64(0) })
	fk := d.Quote(t.R.Vote.OwnerColumn())
	for len(ids) > 0 {
		in, args := inChunk(d, &ids)
		stmt := "SELECT " + fk + ", " + d.Quote(t.R.VoteMark) + " FROM " + d.Quote(t.R.Vote.Table()) + " WHERE " + fk + " IN (" + in + ")"
		err := func() error {
			rows, err := tx.QueryContext(ctx, stmt, args...)
			if err != nil {
				return fmt.Errorf("server: votes: %w", err)
			}
			defer rows.Close()
			for rows.Next() {
				var id int64
				var mark string
				if err := rows.Scan(&id, &mark); err != nil {
					return fmt.Errorf("server: votes: %w", err)
				}
				if o := byID[id]; o != nil && mark == "up" {
					o["rating"] = o["rating"].(int64) + 1
				} else if o != nil {
					o["rating"] = o["rating"].(int64) - 1
				}
			}
			return rows.Err()
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// planApprovals is GET /projects/{projectId}/approvals with the
// platform's translationId, stringId, languageId, fileId, labelIds,
// excludeLabelIds and orderBy.
func (s *Server) planApprovals(req *listRequest) (plan, *httpError) {
	f, e := readTrFilter(req)
	if e != nil {
		return nil, e
	}
	return pagedPlan{noIDs: true, rq: func(p *Project) (*rowsQuery, error) { return s.translationMarks(p, f, false) }}, nil
}

// planVotes is GET /projects/{projectId}/votes with the same parameters.
func (s *Server) planVotes(req *listRequest) (plan, *httpError) {
	f, e := readTrFilter(req)
	if e != nil {
		return nil, e
	}
	return pagedPlan{noIDs: true, rq: func(p *Project) (*rowsQuery, error) { return s.translationMarks(p, f, true) }}, nil
}

// translationMarks is the statement of the approvals (or votes) of the
// translations f selects, in the platform's Approval (Vote) shape, in the
// order of their translations and, within one, as stored.
func (s *Server) translationMarks(p *Project, f trFilter, votes bool) (*rowsQuery, error) {
	d := p.Dialect()
	res, t, r, err := s.trTables(d)
	if err != nil {
		return nil, err
	}
	table, fk, user, added := r.Appr.Table(), r.Appr.OwnerColumn(), r.ApprUser, r.ApprAdded
	if votes {
		table, fk, user, added = r.Vote.Table(), r.Vote.OwnerColumn(), r.VoteUser, r.VoteAdded
	}
	a := func(c string) string { return "a." + d.Quote(c) }
	q := &query{d: d}
	// An approval's string is the one asked for, else the one its
	// translation was made for.
	stringID, asked := res.sqlOf("stringId"), f.stringID > 0 && f.trID == 0
	if asked {
		stringID = "NULL"
	}
	f.where(q, res, t)
	sel := []string{a(fk), a(user), a(added), res.language, stringID}
	cols := []column{{json: "translationId", kind: kInt}, {json: "userId", kind: kInt}, {json: "createdAt", kind: kTime},
		{json: "languageId", kind: kString}, {json: "stringId", kind: kInt, nullable: true}}
	if votes {
		sel = append(sel[:3], a(r.VoteMark))
		cols = append(cols[:3], column{json: "mark", kind: kString})
		cols[2].json = "votedAt"
	}
	return &rowsQuery{sel: strings.Join(sel, ", "), from: " FROM " + d.Quote(table) + " AS a JOIN " + res.table + " ON " + res.key + " = " + a(fk),
		order: a(fk) + ", " + a(mapping.OrdinalColumn), q: q, cols: cols, seek: a(fk), ints: map[string]intCol{"translationId": {sql: a(fk)}},
		shape: func(o map[string]any) {
			if asked && !votes {
				o["stringId"] = f.stringID
			}
			o["id"] = int64(0)
			o["user"] = userShape(p, o["userId"].(int64))
			delete(o, "userId")
		}}, nil
}
