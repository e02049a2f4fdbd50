package playground

import (
	"context"
	"fmt"

	"github.com/croql/croql"
	"github.com/croql/croql/editor"
	"github.com/croql/croql/schema"
)

// OthersLimit is how many objects that do not match Evaluate lists (in
// Evaluation.Others), for the page to explain.
const OthersLimit = 20

// Why is the explanation of a query on one object: as `croql why` prints
// it (Text) and as its JSON (Explanation, spans in bytes of the text).
type Why struct {
	Text        string             `json:"text"`
	Explanation *croql.Explanation `json:"explanation,omitempty"`
	Error       string             `json:"error,omitempty"`
}

// Why explains src on the object with id of the options' context
// (croql.Query.Why): each clause's value on it and which clauses decided
// the result. A query with an error, or an id the project lacks, is an
// Error.
func (p *Playground) Why(src string, o Options, id int64) Why {
	e, _, text, err := p.open(src, o)
	if err != nil {
		return Why{Error: err.Error()}
	}
	q, diags := e.Compile(text)
	if q == nil {
		return Why{Error: firstError(diags)}
	}
	for _, obj := range p.objects(e) {
		if oid, ok := schema.ObjectID(obj); ok && oid == id {
			x, err := q.Why(obj)
			if err != nil {
				return Why{Error: err.Error()}
			}
			return Why{Text: x.String(), Explanation: x}
		}
	}
	return Why{Error: fmt.Sprintf("the %s context has no object with id %d", e.Context().Name, id)}
}

// Diff is what changing a filter from an old query to a new one does to
// the project's objects: how many each matches, how many both do, and the
// first objects only the old one matches (removed) and only the new one
// (added).
type Diff struct {
	CountOld int     `json:"countOld"`
	CountNew int     `json:"countNew"`
	Both     int     `json:"both"`
	Total    int     `json:"total"`
	OnlyOld  []Match `json:"onlyOld"`
	OnlyNew  []Match `json:"onlyNew"`
	// RemovedCount and AddedCount are the lengths of the whole sides;
	// OnlyOld and OnlyNew list up to the limit.
	RemovedCount int    `json:"removedCount"`
	AddedCount   int    `json:"addedCount"`
	Error        string `json:"error,omitempty"`
}

// Diff runs old and new (croql.Diff) over the objects of the options'
// context (new's directive, if any, decides it for both) and lists up to
// limit objects of each side (DefaultMatchLimit when limit <= 0).
func (p *Playground) Diff(old, new string, o Options, limit int) Diff {
	if limit <= 0 {
		limit = DefaultMatchLimit
	}
	out := Diff{OnlyOld: []Match{}, OnlyNew: []Match{}}
	e, _, newText, err := p.open(new, o)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	_, oldText := editor.ParseDirective(old)
	oq, diags := e.Compile(oldText)
	if oq == nil {
		out.Error = "old query: " + firstError(diags)
		return out
	}
	nq, diags := e.Compile(newText)
	if nq == nil {
		out.Error = "new query: " + firstError(diags)
		return out
	}
	objs := p.objects(e)
	d, err := croql.Diff(context.Background(), oq, nq, objs)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Total, out.Both = len(objs), d.Both
	out.RemovedCount, out.AddedCount = len(d.OnlyOld), len(d.OnlyNew)
	out.CountOld, out.CountNew = d.Both+len(d.OnlyOld), d.Both+len(d.OnlyNew)
	for _, obj := range d.OnlyOld[:min(limit, len(d.OnlyOld))] {
		out.OnlyOld = append(out.OnlyOld, describe(obj))
	}
	for _, obj := range d.OnlyNew[:min(limit, len(d.OnlyNew))] {
		out.OnlyNew = append(out.OnlyNew, describe(obj))
	}
	return out
}
