package fuzz_test

import (
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/store/fuzz"
)

// size counts the objects of a project, nested elements included.
func size(p *schema.Project) int {
	n := len(p.TMSegments) + len(p.GlossaryTerms) + len(p.GlossaryConcepts)
	for _, s := range p.Strings {
		n += 1 + len(s.Comments) + len(s.Screenshots) + len(s.LanguagesSummary) + len(s.Labels) + len(s.Fields)
		for _, t := range s.Translations {
			n += 1 + len(t.Votes) + len(t.Approvals)
		}
	}
	for _, seg := range p.TMSegments {
		n += len(seg.Records)
	}
	return n
}

// TestGenProject: generated projects are valid data files, use the users
// and languages the query generator mentions, and cover what the issue
// asks for: absent values, empty and large collections, user ids outside
// the directory, and every boundary instant.
func TestGenProject(t *testing.T) {
	var nilFile, nilMaxLength, emptyTr, largeColl, unknownUser, nilProvider int
	instants := map[schema.Time]bool{}
	for _, v := range sample(t, fuzz.GenProject(), 500, 1) {
		p := v.(fuzz.Data).P
		require.NoError(t, p.Validate())
		ids := map[int64]bool{}
		for _, s := range p.Strings {
			instants[s.Added] = true
			if s.File == nil {
				nilFile++
			}
			if s.MaxLength == nil {
				nilMaxLength++
			}
			if len(s.Translations) == 0 {
				emptyTr++
			}
			if len(s.Translations) >= 10 || len(s.Comments) >= 10 || len(s.Screenshots) >= 10 {
				largeColl++
			}
			for _, tr := range s.Translations {
				require.False(t, ids[tr.ID], "translation id %d twice", tr.ID)
				ids[tr.ID] = true
				assert.Contains(t, fuzz.Languages(), tr.Language)
				if tr.User == 99 {
					unknownUser++
				}
				if tr.Provider == nil {
					nilProvider++
				}
			}
		}
	}
	for _, n := range []int{nilFile, nilMaxLength, emptyTr, largeColl, unknownUser, nilProvider} {
		assert.Positive(t, n)
	}
	assert.True(t, instants[fuzz.Now()], "'today' is an instant of the data")
	assert.GreaterOrEqual(t, len(instants), 12, "boundary instants")
}

// TestShrinkData: every shrink candidate is a valid, strictly smaller
// project, and repeated shrinking reaches the empty project.
func TestShrinkData(t *testing.T) {
	gen := fuzz.GenProject()
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(5))
	for range 30 {
		r := gen(params)
		v, _ := r.Retrieve()
		d := v.(fuzz.Data)
		for size(d.P) > 0 {
			next := r.Shrinker(d)
			c, ok := next()
			require.True(t, ok, "no candidate for %s", d)
			cd := c.(fuzz.Data)
			require.NoError(t, cd.P.Validate())
			require.Less(t, size(cd.P), size(d.P))
			for c, ok := next(); ok; c, ok = next() {
				require.Less(t, size(c.(fuzz.Data).P), size(d.P))
			}
			d = cd
		}
	}
}
