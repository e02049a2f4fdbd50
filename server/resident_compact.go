package server

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/croql/croql/schema"
)

// The compact layout of a resident snapshot. The objects are copied as
// they are read into the snapshot's own types (resident_types.go), which
// the evaluator reads by field offset, and into few large allocations:
// every string's
// translations into one slab, every translation's votes into another,
// and so on, each object's slice a sub-slice whose capacity is its
// length (no spare capacity, no rounding of a small allocation up to its
// size class, a few thousand allocations instead of tens of millions);
// text into large byte chunks the collector never scans; the short
// values that repeat (language codes, plural forms, types, marks,
// providers, label titles, custom fields, screenshot names) once each;
// and the translations a duplicate shares with its master once, under
// both. What no query reads is not kept: the fields the snapshot's types
// lack, the glossary concepts (no list of them is answered from the
// snapshot); the page's rows are read from the database. The compactor
// counts the bytes it allocates, which is the snapshot's size.

// slabBytes is the size of a slab's chunk and of a text chunk.
const slabBytes = 64 << 10

// slab hands out sub-slices of large chunks of T.
type slab[T any] struct {
	buf   []T
	bytes *int64
}

// take returns n zero Ts whose capacity is n (nil for 0).
func (s *slab[T]) take(n int) []T {
	if n == 0 {
		return nil
	}
	if cap(s.buf)-len(s.buf) < n {
		var zero T
		size := int(unsafe.Sizeof(zero))
		c := max(n, slabBytes/max(size, 1))
		s.buf = make([]T, 0, c)
		*s.bytes += int64(c * size)
	}
	start := len(s.buf)
	s.buf = s.buf[:start+n]
	return s.buf[start : start+n : start+n]
}

// chunked collects Ts in chunks and hands them back as one slice whose
// capacity is its length.
type chunked[T any] struct {
	slab   slab[T]
	chunks [][]T
	n      int
}

// add returns the place of the next T.
func (c *chunked[T]) add() *T {
	if len(c.chunks) == 0 || len(c.chunks[len(c.chunks)-1]) == cap(c.chunks[len(c.chunks)-1]) {
		var zero T
		n := max(1, slabBytes/max(int(unsafe.Sizeof(zero)), 1))
		c.chunks = append(c.chunks, make([]T, 0, n))
		*c.slab.bytes += int64(n) * int64(unsafe.Sizeof(zero))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = (*last)[:len(*last)+1]
	c.n++
	return &(*last)[len(*last)-1]
}

// all is every T added, in order, in one slice; the chunks are dropped.
func (c *chunked[T]) all() []T {
	if c.n == 0 {
		return nil
	}
	out := make([]T, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	var zero T
	*c.slab.bytes += int64(c.n)*int64(unsafe.Sizeof(zero)) - int64(len(c.chunks)*cap(c.chunks[0]))*int64(unsafe.Sizeof(zero))
	c.chunks, c.n = nil, 0
	return out
}

// compactor copies a project's objects into the compact layout.
type compactor struct {
	// bytes is what the compact objects hold; transient what the maps
	// that build them hold until the end of the read.
	bytes, transient int64
	text             []byte
	// interned are the short values kept once; ptrs the pointers to them
	// (a provider, a term's status).
	interned map[string]string
	ptrs     map[string]*string
	// dict are the texts kept once (text); dictFull is set when it takes
	// no more, dictLooks and dictHits count its lookups and finds.
	dict                map[string]string
	dictFull            bool
	dictLooks, dictHits int
	ints                map[int64]*int64
	times               slab[schema.Time]
	// trBase is the first translation id read (haveTrBase): the
	// translations hold their ids as differences from it (trDelta).
	trBase     int64
	haveTrBase bool
	// narrowErr is the first value that did not fit its narrow field
	// (errNarrow): the snapshot is not built.
	narrowErr error
	// masters are the compact translations of the strings read so far
	// that have their own, by string id (a duplicate shares them).
	masters map[int64][]resTranslation

	strings   chunked[resString]
	ids       chunked[int64]
	tm        chunked[resSegment]
	terms     chunked[resTerm]
	trs       slab[resTranslation]
	votes     slab[resVote]
	approvals slab[schema.Approval]
	comments  slab[resComment]
	shots     slab[resScreenshot]
	labels    slab[resLabel]
	fields    slab[resField]
	summaries slab[resSummary]
	tmRecords slab[resRecord]
}

func newCompactor() *compactor {
	c := &compactor{interned: map[string]string{}, ptrs: map[string]*string{}, ints: map[int64]*int64{}, masters: map[int64][]resTranslation{},
		dict: map[string]string{}}
	c.times.bytes = &c.bytes
	c.trs.bytes, c.votes.bytes, c.approvals.bytes = &c.bytes, &c.bytes, &c.bytes
	c.comments.bytes, c.shots.bytes, c.labels.bytes = &c.bytes, &c.bytes, &c.bytes
	c.fields.bytes, c.summaries.bytes, c.tmRecords.bytes = &c.bytes, &c.bytes, &c.bytes
	c.strings.slab.bytes, c.tm.slab.bytes, c.terms.slab.bytes = &c.bytes, &c.bytes, &c.bytes
	c.ids.slab.bytes = &c.bytes
	return c
}

// str copies s into a text chunk.
func (c *compactor) str(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > slabBytes/16 {
		c.bytes += int64(len(s))
		return strings.Clone(s)
	}
	if cap(c.text)-len(c.text) < len(s) {
		c.text = make([]byte, 0, slabBytes)
		c.bytes += slabBytes
	}
	start := len(c.text)
	c.text = append(c.text, s...)
	return unsafe.String(&c.text[start], len(s))
}

// A text (a string's, a translation's, a TM record's, a term's) is kept
// once when it repeats (kept): localization data repeats its texts (a duplicate
// string's text is its master's, a TM record's a translation's, a
// translation is often the same in several strings). The texts up to
// dictText bytes go into a dictionary while it pays: after every
// dictCheck texts added to it, it stops taking new ones when fewer than
// one in four of the texts looked up were in it. A project whose texts
// are all different costs the dictionary's first dictCheck entries while
// it builds, and nothing after.
const (
	dictText  = 256
	dictCheck = 1 << 16
)

// kept returns s kept in a text chunk, or the copy of it the dictionary
// has.
func (c *compactor) kept(s string) string {
	if s == "" || len(s) > dictText || c.dict == nil {
		return c.str(s)
	}
	c.dictLooks++
	if v, ok := c.dict[s]; ok {
		c.dictHits++
		return v
	}
	v := c.str(s)
	if !c.dictFull {
		c.dict[v] = v
		c.transient += internedBytes
		if len(c.dict)%dictCheck == 0 && c.dictHits < c.dictLooks/4 {
			c.dictFull = true
		}
	}
	return v
}

// internedBytes is what an entry of the compactor's maps costs while it
// builds.
const internedBytes = 64

// intern returns s kept once.
func (c *compactor) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := c.interned[s]; ok {
		return v
	}
	v := c.str(s)
	c.interned[v] = v
	c.transient += internedBytes
	return v
}

// internPtr returns a pointer to s kept once (nil for nil).
func (c *compactor) internPtr(s *string) *string {
	if s == nil {
		return nil
	}
	if p, ok := c.ptrs[*s]; ok {
		return p
	}
	v := c.intern(*s)
	p := &v
	c.ptrs[v] = p
	c.bytes += int64(unsafe.Sizeof(v))
	c.transient += internedBytes
	return p
}

// intPtr returns a pointer to *v kept once (nil for nil).
func (c *compactor) intPtr(v *int64) *int64 {
	if v == nil {
		return nil
	}
	if p, ok := c.ints[*v]; ok {
		return p
	}
	p := new(int64)
	*p = *v
	c.ints[*v] = p
	c.bytes += 8
	c.transient += internedBytes
	return p
}

// sym returns a pointer to s kept once.
func (c *compactor) sym(s string) *string {
	if p, ok := c.ptrs[s]; ok {
		return p
	}
	return c.internPtr(&s)
}

// u32 returns v as a narrow int; a v outside [0, 2^32) is kept as 0 and
// stops the build (narrowErr). what names the value.
func (c *compactor) u32(v int64, what string) uint32 {
	if v < 0 || v > math.MaxUint32 {
		if c.narrowErr == nil {
			c.narrowErr = fmt.Errorf("%w: %s %d", errNarrow, what, v)
		}
		return 0
	}
	return uint32(v)
}

// trDelta returns id, a translation's id, as its difference from the
// first translation id (trBase); one more than 2^31 away from it stops the
// build (narrowErr).
func (c *compactor) trDelta(id int64) uint32 {
	if !c.haveTrBase {
		c.trBase, c.haveTrBase = id, true
	}
	d := id - c.trBase
	if d < math.MinInt32 || d > math.MaxInt32 {
		if c.narrowErr == nil {
			c.narrowErr = fmt.Errorf("%w: translation id %d is more than 2^31 from %d", errNarrow, id, c.trBase)
		}
		return 0
	}
	return uint32(int32(d))
}

// errNarrow is the build's error for a value outside its narrow field's
// range: the database serves the project.
var errNarrow = errors.New("server: a value is outside the range of the snapshot's 32-bit fields")

// time returns a pointer to a copy of *t (nil for nil).
func (c *compactor) time(t *schema.Time) *schema.Time {
	if t == nil {
		return nil
	}
	p := &c.times.take(1)[0]
	*p = *t
	return p
}

// add copies o, a *SourceString, *TMSegment or *GlossaryTerm, into the
// compact layout; it keeps nothing of other objects.
func (c *compactor) add(o any) {
	switch v := o.(type) {
	case *schema.SourceString:
		c.addString(v)
	case *schema.TMSegment:
		seg := c.tm.add()
		seg.ID = v.ID
		seg.Records = c.tmRecords.take(len(v.Records))
		for i, r := range v.Records {
			seg.Records[i] = resRecord{ID: c.u32(r.ID, "TM record id"), Text: c.kept(r.Text), UsageCount: c.u32(r.UsageCount, "usage count"),
				CreatedBy: c.u32(r.CreatedBy, "user id"), UpdatedBy: c.u32(r.UpdatedBy, "user id"),
				CreatedAt: c.u32(int64(r.CreatedAt), "time"), UpdatedAt: c.u32(int64(r.UpdatedAt), "time")}
		}
	case *schema.GlossaryTerm:
		*c.terms.add() = resTerm{ID: v.ID, User: c.u32(v.User, "user id"), ConceptID: c.u32(v.ConceptID, "concept id"),
			Text: c.kept(v.Text), Description: c.kept(v.Description), Note: c.kept(v.Note), Lemma: c.kept(v.Lemma),
			URL: c.sym(v.URL), Language: c.sym(v.Language),
			PartOfSpeech: c.internPtr(v.PartOfSpeech), Status: c.internPtr(v.Status),
			Type: c.internPtr(v.Type), Gender: c.internPtr(v.Gender),
			CreatedAt: c.u32(int64(v.CreatedAt), "time"), UpdatedAt: c.time(v.UpdatedAt)}
	}
}

// addString copies a source string; its file and branch stay the head's.
func (c *compactor) addString(v *schema.SourceString) {
	*c.ids.add() = v.ID
	s := c.strings.add()
	*s = resString{Type: c.sym(v.Type), Text: c.kept(v.Text), Identifier: c.str(v.Identifier),
		Context: c.sym(v.Context), MaxLength: c.intPtr(v.MaxLength), File: v.File, Branch: v.Branch,
		Added: c.u32(int64(v.Added), "time"), Updated: c.time(v.Updated),
		IsHidden: v.IsHidden, IsDuplicate: v.IsDuplicate, IsPassedWorkflow: v.IsPassedWorkflow}
	comments := c.comments.take(len(v.Comments))
	for i, m := range v.Comments {
		comments[i] = resComment{User: c.u32(m.User, "user id"), HasIssue: m.HasIssue, HasUnresolvedIssue: m.HasUnresolvedIssue}
	}
	shots := c.shots.take(len(v.Screenshots))
	for i, m := range v.Screenshots {
		shots[i] = resScreenshot{ID: c.u32(m.ID, "screenshot id"), Name: c.sym(m.Name)}
	}
	labels := c.labels.take(len(v.Labels))
	for i, m := range v.Labels {
		labels[i] = resLabel{ID: c.u32(m.ID, "label id"), Title: c.sym(m.Title), IsSystem: m.IsSystem}
	}
	fields := c.fields.take(len(v.Fields))
	for i, m := range v.Fields {
		fields[i] = resField{Name: c.sym(m.Name), Slug: c.sym(m.Slug), Value: c.sym(m.Value), Type: c.sym(m.Type)}
	}
	summary := c.summaries.take(len(v.LanguagesSummary))
	for i := range v.LanguagesSummary {
		m := &v.LanguagesSummary[i]
		summary[i] = resSummary{Language: c.sym(m.Language), TranslationUpdated: c.time(m.TranslationUpdated),
			Rating: m.Rating, ApprovalsCount: c.u32(m.ApprovalsCount, "approvals count"), Bits: summaryBits(m)}
	}
	s.Comments, s.NComments = countedOf(comments)
	s.Screenshots, s.NScreenshots = countedOf(shots)
	s.Labels, s.NLabels = countedOf(labels)
	s.Fields, s.NFields = countedOf(fields)
	s.LanguagesSummary, s.NLanguagesSummary = countedOf(summary)
	s.Translations, s.NTranslations = countedOf(c.translations(v))
}

// translations copies v's translations, or returns its master's when v
// shares them whole.
func (c *compactor) translations(v *schema.SourceString) []resTranslation {
	if len(v.Translations) == 0 {
		return nil
	}
	if m := v.Translations[0].StringID; m != v.ID {
		if own, ok := c.masters[m]; ok && c.sameTranslations(own, v.Translations, m) {
			return own
		}
	}
	out := c.trs.take(len(v.Translations))
	for i, t := range v.Translations {
		votes := c.votes.take(len(t.Votes))
		for j, x := range t.Votes {
			votes[j] = resVote{Mark: c.sym(x.Mark), User: c.u32(x.User, "user id"), Added: c.u32(int64(x.Added), "time")}
		}
		approvals := c.approvals.take(len(t.Approvals))
		copy(approvals, t.Approvals)
		out[i] = resTranslation{idDelta: c.trDelta(t.ID), Text: c.kept(t.Text), PluralForm: c.sym(t.PluralForm), Language: c.intern(t.Language),
			Provider: c.internPtr(t.Provider), User: c.u32(t.User, "user id"), Updated: c.u32(int64(t.Updated), "time"),
			IsPreTranslated: t.IsPreTranslated}
		out[i].Votes, out[i].NVotes = countedOf(votes)
		out[i].Approvals, out[i].NApprovals = countedOf(approvals)
	}
	if !slices.ContainsFunc(v.Translations, func(t schema.Translation) bool { return t.StringID != v.ID }) {
		c.masters[v.ID] = out
		c.transient += internedBytes
	}
	return out
}

// sameTranslations reports whether b, translations made for string m,
// hold what a, m's compact translations, holds.
func (c *compactor) sameTranslations(a []resTranslation, b []schema.Translation, m int64) bool {
	return slices.EqualFunc(a, b, func(x resTranslation, y schema.Translation) bool {
		return x.idDelta == c.trDelta(y.ID) && y.StringID == m && x.Text == y.Text && *x.PluralForm == y.PluralForm &&
			x.IsPreTranslated == y.IsPreTranslated && sameString(x.Provider, y.Provider) && x.Language == y.Language &&
			int64(x.User) == y.User && int64(x.Updated) == int64(y.Updated) && slices.EqualFunc(x.votes(), y.Votes, sameVote) &&
			slices.Equal(x.approvals(), y.Approvals)
	})
}

func sameVote(a resVote, b schema.Vote) bool {
	return *a.Mark == b.Mark && int64(a.User) == b.User && int64(a.Added) == int64(b.Added)
}

func sameString(a, b *string) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// residentData is a project's objects in the compact layout: the strings,
// TM segments and glossary terms each in one allocation whose capacity is
// its length, and the bytes they hold. The strings' files and branches
// are the head's.
type residentData struct {
	strings []resString
	ids     []int64 // the strings'
	tm      []resSegment
	terms   []resTerm
	bytes   int64
	// trBase is the id the translations' ids are differences from
	// (resTranslation.id).
	trBase int64
}

// data returns the objects added; the compactor's maps are dropped.
func (c *compactor) data() *residentData {
	d := &residentData{strings: c.strings.all(), ids: c.ids.all(), tm: c.tm.all(), terms: c.terms.all()}
	c.interned, c.ptrs, c.ints, c.masters, c.dict, c.transient = nil, nil, nil, nil, nil, 0
	d.bytes, d.trBase = c.bytes, c.trBase
	return d
}

func sizeOf[T any](n int) int64 {
	var zero T
	return int64(n) * int64(unsafe.Sizeof(zero))
}
