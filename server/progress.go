package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// projectProgress is GET /projects/{projectId}/languages/progress: per
// target language, the strings (phrases) and their source words, and how
// many of them are translated and approved, read from the strings'
// languages summary (is translated, is approved). Percentages are of the
// words, rounded down, as the platform's progress bars show them.
func (s *Server) projectProgress(r *http.Request) (any, *httpError) {
	var langs []string
	p, params, data, e := s.progressRequest(r, false, func(p *Project, params listParams) *httpError {
		if params.croql != "" {
			return invalid("croql", "notSupported", "the progress list takes no croql")
		}
		langs = slices.Clone(p.TargetLanguages)
		if v := r.URL.Query().Get("languageIds"); v != "" {
			langs = nil
			for _, l := range strings.Split(v, ",") {
				if !p.HasLanguage(l) {
					return invalid("languageIds", "notInArray", fmt.Sprintf("languageIds: %q is not a target language of the project", l))
				}
				langs = append(langs, l)
			}
		}
		return nil
	})
	if e != nil {
		return nil, e
	}
	return pageOf(data.byLanguage(p, langs, func(int64) bool { return true }), params), nil
}

// fileProgress is GET /projects/{projectId}/files/{fileId}/languages/progress:
// the project progress over the file's strings.
func (s *Server) fileProgress(r *http.Request) (any, *httpError) {
	var id int64
	p, params, data, e := s.progressRequest(r, false, func(*Project, listParams) *httpError {
		var ok bool
		if id, ok = pathID(r, "fileId"); !ok {
			return notFound("File")
		}
		return nil
	})
	if e != nil {
		return nil, e
	}
	if !data.files[id] {
		return nil, notFound("File")
	}
	return pageOf(data.byLanguage(p, p.TargetLanguages, func(sid int64) bool { return data.fileOf[sid] == id }), params), nil
}

// languageProgress is GET /projects/{projectId}/languages/{languageId}/progress:
// one language's progress per file (the files that have strings).
func (s *Server) languageProgress(r *http.Request) (any, *httpError) {
	_, params, data, e := s.progressRequest(r, true, nil)
	if e != nil {
		return nil, e
	}
	lang := r.PathValue("languageId")
	ids := make([]int64, 0, len(data.files))
	for id := range data.files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var objs []map[string]any
	for _, id := range ids {
		o := data.progress(lang, func(sid int64) bool { return data.fileOf[sid] == id })
		o["fileId"], o["branchId"] = id, nil
		objs = append(objs, o)
	}
	return pageOf(objs, params), nil
}

// progressRequest resolves the project (and, with lang, the path's
// language) of a progress request, reads its parameters, runs check (when
// not nil) on them and reads the project's progress data.
func (s *Server) progressRequest(r *http.Request, lang bool, check func(*Project, listParams) *httpError) (*Project, listParams, *progressOf, *httpError) {
	p, e := s.project(r, "projectId", "Project")
	if e != nil {
		return nil, listParams{}, nil, e
	}
	if lang && !p.HasLanguage(r.PathValue("languageId")) {
		return nil, listParams{}, nil, notFound("Language")
	}
	params, e := s.params(r, nil, false)
	if e == nil && check != nil {
		e = check(p, params)
	}
	if e != nil {
		return nil, listParams{}, nil, e
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	data, err := s.progressData(ctx, p)
	if err != nil {
		return nil, listParams{}, nil, s.dbError(r, ctx, "", err)
	}
	return p, params, data, nil
}

// progressOf is what the progress endpoints count: each string's source
// words and file, and its languages summary (translated, approved) by
// language.
type progressOf struct {
	words   map[int64]int64
	fileOf  map[int64]int64
	files   map[int64]bool
	summary map[summaryKey]languageState
}

// byLanguage is the progress of each of langs over the strings keep
// selects, with its language.
func (d *progressOf) byLanguage(p *Project, langs []string, keep func(int64) bool) []map[string]any {
	var objs []map[string]any
	for _, l := range langs {
		o := d.progress(l, keep)
		o["languageId"], o["language"] = l, languageShape(p, l)
		objs = append(objs, o)
	}
	return objs
}

// progressCounts are the strings (or their words) of a progress: all,
// translated and approved.
type progressCounts struct{ total, translated, approved int64 }

func (c progressCounts) add(n int64, summary languageState) progressCounts {
	c.total += n
	if summary.translated {
		c.translated += n
	}
	if summary.approved {
		c.approved += n
	}
	return c
}

func (c progressCounts) object() map[string]any {
	return map[string]any{"total": c.total, "translated": c.translated, "approved": c.approved, "preTranslateAppliedTo": 0}
}

// languageState is a string's languages summary in one language.
type languageState struct{ translated, approved bool }

// progress counts the strings keep keeps in language l.
func (d *progressOf) progress(l string, keep func(int64) bool) map[string]any {
	var phrases, words progressCounts
	for id, n := range d.words {
		if !keep(id) {
			continue
		}
		st := d.summary[summaryKey{id, l}]
		phrases, words = phrases.add(1, st), words.add(n, st)
	}
	pct := func(a, b int64) int64 {
		if b == 0 {
			return 0
		}
		return a * 100 / b
	}
	return map[string]any{"words": words.object(), "phrases": phrases.object(), "translationProgress": pct(words.translated, words.total),
		"approvalProgress": pct(words.approved, words.total), "eTag": ""}
}

type summaryKey struct {
	id   int64
	lang string
}

// progressData reads each string's word count and file and its
// languages summary (translated, approved) by language.
func (s *Server) progressData(ctx context.Context, p *Project) (*progressOf, error) {
	d := p.Dialect()
	t, err := s.tables(d)
	if err != nil {
		return nil, err
	}
	fk := t.StrSummary.Child.FK
	out := &progressOf{words: map[int64]int64{}, fileOf: map[int64]int64{}, files: map[int64]bool{}, summary: map[summaryKey]languageState{}}
	err = s.cfg.Storage.ReadTx(ctx, p, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT "+d.Quote(t.Str.Key())+", "+d.Quote(t.StrText)+", "+d.Quote(t.StrFile)+" FROM "+d.Quote(t.Str.Table()))
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var text string
			var file any
			if err := rows.Scan(&id, &text, &file); err != nil {
				rows.Close()
				return err
			}
			out.words[id] = int64(len(strings.Fields(text)))
			if f, ok := toInt(file); ok && file != nil {
				out.fileOf[id] = f
				out.files[f] = true
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, "SELECT "+d.Quote(fk)+", "+d.Quote(t.SumLang)+", "+d.Quote(t.SumTranslated)+", "+d.Quote(t.SumApproved)+" FROM "+d.Quote(t.Sum.Table()))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var lang string
			var tr, ap any
			if err := rows.Scan(&id, &lang, &tr, &ap); err != nil {
				return err
			}
			out.summary[summaryKey{id, lang}] = languageState{value(column{kind: kBool}, tr) == true, value(column{kind: kBool}, ap) == true}
		}
		return rows.Err()
	})
	return out, err
}
