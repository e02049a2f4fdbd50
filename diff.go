package croql

import (
	"context"
	"fmt"
)

// Difference is what changing a filter from one query to another does to
// a set of objects: the objects only the old query matches (the change
// removes them), those only the new one matches (it adds them), and how
// many both match. Objects keep the order they were given in.
type Difference struct {
	OnlyOld []any
	OnlyNew []any
	Both    int
}

// Diff runs old and new, two queries of one context, over objs and returns
// the objects only old matches and those only new matches. Each object is
// evaluated under ctx (Query.MatchContext): when ctx is done Diff stops
// and returns its error. A value that is not a pointer to the context's
// root type is an error wrapping ErrMisuse.
func Diff(ctx context.Context, old, new *Query, objs []any) (*Difference, error) {
	if old == nil || new == nil {
		return nil, fmt.Errorf("croql: diff: a nil query")
	}
	if oc, nc := old.Context().Name, new.Context().Name; oc != nc {
		return nil, fmt.Errorf("croql: diff: queries of different contexts: the old one of %s, the new one of %s", oc, nc)
	}
	d := &Difference{}
	for _, o := range objs {
		if err := old.CheckValue(o); err != nil {
			return nil, fmt.Errorf("croql: diff: %w", err)
		}
		a, err := old.MatchContext(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("croql: diff: %w", err)
		}
		b, err := new.MatchContext(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("croql: diff: %w", err)
		}
		switch {
		case a && b:
			d.Both++
		case a:
			d.OnlyOld = append(d.OnlyOld, o)
		case b:
			d.OnlyNew = append(d.OnlyNew, o)
		}
	}
	return d, nil
}
