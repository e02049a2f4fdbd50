// Package pull reads a project through the platform's REST API (v2) with
// the official Go client and writes it in croql's newline-delimited data
// format, one object at a time, as it arrives.
package pull

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/crowdin/crowdin-api-client-go/crowdin"
	"github.com/crowdin/crowdin-api-client-go/crowdin/model"

	"github.com/croql/croql/schema"
)

// DefaultConcurrency is how many requests for translations are in
// flight at once: well under the platform's limit of simultaneous
// requests per account.
const DefaultConcurrency = 4

// Options are what Run reads and how.
type Options struct {
	// URL is the API's base address (https://api.crowdin.com, or
	// https://ORG.api.crowdin.com for an organization); a trailing /api/v2
	// is allowed.
	URL string
	// Token is the personal access token.
	Token string
	// Project is the project's id.
	Project int64
	// Concurrency bounds the translation requests in flight
	// (DefaultConcurrency when 0).
	Concurrency int
	// Retries bounds the retries of one request answered 429 or 503
	// (DefaultRetries when 0, none when negative).
	Retries int
	// Transport sends the requests (http.DefaultTransport when nil).
	Transport http.RoundTripper
	// Progress, when set, is told what is being read (counts so far); it
	// may be called from several goroutines at once, never concurrently
	// for one stage.
	Progress func(format string, a ...any)
}

// Stats counts what Run wrote.
type Stats struct {
	Users, Languages, Files, Branches, Labels, Strings, Translations int
	Approvals, Votes, Comments, Segments, Concepts, Terms            int
	// Retried counts the answers 429 or 503 that were waited out.
	Retried int
	// Requests counts the requests sent (retries included);
	// StringRequests those to the string translations list (one string's
	// translations into one language).
	Requests, StringRequests int
}

// puller is one run.
type puller struct {
	o     Options
	c     *crowdin.Client
	nw    *schema.NDJSONWriter
	base  string // /api/v2/projects/{id}
	st    Stats
	proj  rawProject
	langs map[string][]string // plural categories by language
	files map[int64]*schema.File
	brs   map[int64]*schema.Branch
	lbls  map[int64]schema.Label
	marks *marks
	flags flagSets
	// owner is the string each translation of a non-duplicate string was
	// listed under: a duplicate that lists it shares it (when the platform
	// does not name the master).
	owner map[int64]int64
	bulk  *bulkInfo
	// retried, sent and perString count the answers 429/503 waited out,
	// the requests sent and those to the string translations list.
	retried, sent, perString atomic.Int64
}

func (p *puller) progress(format string, a ...any) {
	if p.o.Progress != nil {
		p.o.Progress(format, a...)
	}
}

// Run reads the project o names and writes it to w in the NDJSON data
// format: the project line, users, languages, files and branches, then
// each string with its translations (votes, approvals), comments, labels
// and languages summary, then the TM segments and glossary concepts and
// terms of the TMs and glossaries the project uses. Memory does not grow
// with the strings: a page of PageSize strings is held at a time, beside
// the approvals and votes (about 32 bytes each) and an index of the
// translations of non-duplicate strings (about 40 bytes each).
func Run(ctx context.Context, o Options, w io.Writer) (Stats, error) {
	if o.Token == "" {
		return Stats{}, fmt.Errorf("pull: no token")
	}
	if o.Project <= 0 {
		return Stats{}, fmt.Errorf("pull: project id %d is not a positive number", o.Project)
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	p := &puller{o: o, nw: schema.NewNDJSONWriter(w), base: "/api/v2/projects/" + strconv.FormatInt(o.Project, 10),
		owner: map[int64]int64{}}
	waited := func(status int, d time.Duration) {
		p.retried.Add(1)
		p.progress("HTTP %d: waiting %s before retrying", status, d)
	}
	c, err := newClient(&o, waited, &p.sent)
	if err != nil {
		return Stats{}, err
	}
	p.c = c
	for _, step := range []func(context.Context) error{p.head, p.readMarks, p.readFlags, p.readBulkInfo, p.strings, p.tms, p.glossaries} {
		if err := step(ctx); err != nil {
			p.count()
			return p.st, err
		}
	}
	p.count()
	if err := p.nw.Flush(); err != nil {
		return p.st, fmt.Errorf("pull: %w", err)
	}
	return p.st, nil
}

// count copies the counters into the stats.
func (p *puller) count() {
	p.st.Retried = int(p.retried.Load())
	p.st.Requests, p.st.StringRequests = int(p.sent.Load()), int(p.perString.Load())
}

// rawProject is the part of the platform's Project that the data format
// holds.
type rawProject struct {
	Name              string           `json:"name"`
	SourceLanguageID  string           `json:"sourceLanguageId"`
	TargetLanguageIDs []string         `json:"targetLanguageIds"`
	SourceLanguage    *model.Language  `json:"sourceLanguage"`
	TargetLanguages   []model.Language `json:"targetLanguages"`
}

func langInfo(l *model.Language) schema.LanguageInfo {
	return schema.LanguageInfo{ID: l.ID, Name: l.Name, EditorCode: l.EditorCode, TwoLettersCode: l.TwoLettersCode,
		ThreeLettersCode: l.ThreeLettersCode, Locale: l.Locale, AndroidCode: l.AndroidCode, OSXCode: l.OSXCode,
		OSXLocale: l.OSXLocale, PluralCategoryNames: l.PluralCategoryNames, PluralRules: l.PluralRules}
}

// head writes the project line, users (the project's members), languages,
// files and branches, and reads the labels.
func (p *puller) head(ctx context.Context) error {
	p.progress("project %d", p.o.Project)
	if err := get(ctx, p.c, p.base, &p.proj); err != nil {
		return fmt.Errorf("pull: project: %w", err)
	}
	if err := p.nw.Header(&schema.Project{Name: p.proj.Name, SourceLanguage: p.proj.SourceLanguageID,
		TargetLanguages: p.proj.TargetLanguageIDs}); err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	type member struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	}
	if err := each(ctx, p.c, p.base+"/members", nil, func(m *member) error {
		p.st.Users++
		return p.nw.Write(&schema.UserRef{ID: m.ID, Login: m.Username})
	}); err != nil {
		return fmt.Errorf("pull: members: %w", err)
	}
	p.langs = map[string][]string{}
	var langs []*model.Language
	if p.proj.SourceLanguage != nil {
		langs = append(langs, p.proj.SourceLanguage)
	}
	for i := range p.proj.TargetLanguages {
		langs = append(langs, &p.proj.TargetLanguages[i])
	}
	for _, l := range langs {
		if _, ok := p.langs[l.ID]; ok {
			continue
		}
		p.langs[l.ID] = l.PluralCategoryNames
		p.st.Languages++
		if err := p.nw.Write(langInfo(l)); err != nil {
			return fmt.Errorf("pull: %w", err)
		}
	}
	return p.headObjects(ctx)
}

// headObjects writes the files and branches and reads the labels.
func (p *puller) headObjects(ctx context.Context) error {
	p.files = map[int64]*schema.File{}
	if err := each(ctx, p.c, p.base+"/files", nil, func(f *model.File) error {
		sf := &schema.File{ID: int64(f.ID), Name: f.Name, Title: f.Title, Type: f.Type}
		if f.Context != nil {
			sf.Context = *f.Context
		}
		p.files[sf.ID] = sf
		p.st.Files++
		return p.nw.Write(sf)
	}); err != nil {
		return fmt.Errorf("pull: files: %w", err)
	}
	// The client's Branch model has no null title: read it raw.
	p.brs = map[int64]*schema.Branch{}
	if err := each(ctx, p.c, p.base+"/branches", nil, func(b *schema.Branch) error {
		p.brs[b.ID] = b
		p.st.Branches++
		return p.nw.Write(b)
	}); err != nil {
		return fmt.Errorf("pull: branches: %w", err)
	}
	// The client's Label model has no isSystem: read it raw.
	p.lbls = map[int64]schema.Label{}
	if err := each(ctx, p.c, p.base+"/labels", nil, func(l *schema.Label) error {
		p.lbls[l.ID] = *l
		p.st.Labels++
		return nil
	}); err != nil {
		return fmt.Errorf("pull: labels: %w", err)
	}
	return nil
}

// parseTime reads one of the API's datetimes; "" and null are absent.
func parseTime(s string) (schema.Time, bool, error) {
	if s == "" {
		return 0, false, nil
	}
	var t schema.Time
	if err := t.UnmarshalJSON([]byte(strconv.Quote(s))); err != nil {
		return 0, false, err
	}
	return t, true, nil
}

// usesProject reports whether a TM or glossary serves the project.
func usesProject(id int64, lists ...[]int) bool {
	for _, l := range lists {
		if slices.Contains(l, int(id)) {
			return true
		}
	}
	return false
}

// tms writes the segments of the project's translation memories.
func (p *puller) tms(ctx context.Context) error {
	var ids []int
	if err := each(ctx, p.c, "/api/v2/tms", nil, func(tm *model.TranslationMemory) error {
		if usesProject(p.o.Project, tm.ProjectIDs, tm.DefaultProjectIDs) {
			ids = append(ids, tm.ID)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("pull: translation memories: %w", err)
	}
	for _, id := range ids {
		path := "/api/v2/tms/" + strconv.Itoa(id) + "/segments"
		if err := each(ctx, p.c, path, nil, func(s *model.TMSegment) error {
			seg := schema.TMSegment{ID: int64(s.ID)}
			for _, r := range s.Records {
				rec := schema.TMRecord{ID: int64(r.ID), Language: r.LanguageID, Text: r.Text, UsageCount: int64(r.UsageCount),
					CreatedBy: int64(r.CreatedBy), UpdatedBy: int64(r.UpdatedBy)}
				var err error
				if rec.CreatedAt, _, err = parseTime(r.CreatedAt); err != nil {
					return fmt.Errorf("segment %d: record %d: createdAt: %w", s.ID, r.ID, err)
				}
				if rec.UpdatedAt, _, err = parseTime(r.UpdatedAt); err != nil {
					return fmt.Errorf("segment %d: record %d: updatedAt: %w", s.ID, r.ID, err)
				}
				seg.Records = append(seg.Records, rec)
			}
			p.st.Segments++
			p.progress("TM %d: %d segments", id, p.st.Segments)
			return p.nw.Write(&seg)
		}); err != nil {
			return fmt.Errorf("pull: TM %d: %w", id, err)
		}
	}
	return nil
}

// termWords are the API's spellings of a term's partOfSpeech, status,
// type and gender that differ from the data format's ("other" stands for
// sym and x alike: it becomes x).
var termWords = map[string]string{
	"adjective": "adj", "adposition": "adp", "adverb": "adv", "auxiliary": "aux",
	"coordinating conjunction": "cconj", "determiner": "det", "interjection": "intj",
	"numeral": "num", "particle": "prt", "pronoun": "pron", "proper noun": "propn",
	"subordinating conjunction": "sconj", "not recommended": "not_recommended",
	"full form": "full_form", "short form": "short_form",
}

func termValue(field, v string) *string {
	if v == "" {
		return nil
	}
	if w, ok := termWords[v]; ok {
		v = w
	} else if field == "partOfSpeech" && v == "other" {
		v = "x"
	}
	return &v
}

// glossaries writes the concepts and terms of the project's glossaries.
func (p *puller) glossaries(ctx context.Context) error {
	var ids []int
	if err := each(ctx, p.c, "/api/v2/glossaries", nil, func(g *model.Glossary) error {
		if usesProject(p.o.Project, g.ProjectIDs, g.DefaultProjectIDs) {
			ids = append(ids, g.ID)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("pull: glossaries: %w", err)
	}
	for _, id := range ids {
		base := "/api/v2/glossaries/" + strconv.Itoa(id)
		// The client's Concept model has no translatable flag: read it raw.
		type concept struct {
			schema.GlossaryConcept
			UserID int64 `json:"userId"`
		}
		if err := each(ctx, p.c, base+"/concepts", nil, func(c *concept) error {
			g := c.GlossaryConcept
			g.User = c.UserID
			p.st.Concepts++
			return p.nw.Write(&g)
		}); err != nil {
			return fmt.Errorf("pull: glossary %d: concepts: %w", id, err)
		}
		if err := each(ctx, p.c, base+"/terms", nil, func(t *model.Term) error {
			g := schema.GlossaryTerm{ID: int64(t.ID), User: int64(t.UserID), ConceptID: int64(t.ConceptID), Text: t.Text,
				Description: t.Description, Note: t.Note, Lemma: t.Lemma, URL: t.URL, Language: t.LanguageID,
				PartOfSpeech: termValue("partOfSpeech", t.PartOfSpeech), Status: termValue("status", t.Status),
				Type: termValue("type", t.Type), Gender: termValue("gender", t.Gender)}
			var err error
			if g.CreatedAt, _, err = parseTime(t.CreatedAt); err != nil {
				return fmt.Errorf("term %d: createdAt: %w", t.ID, err)
			}
			up, ok, err := parseTime(t.UpdatedAt)
			if err != nil {
				return fmt.Errorf("term %d: updatedAt: %w", t.ID, err)
			}
			if ok {
				g.UpdatedAt = &up
			}
			p.st.Terms++
			p.progress("glossary %d: %d terms", id, p.st.Terms)
			return p.nw.Write(&g)
		}); err != nil {
			return fmt.Errorf("pull: glossary %d: terms: %w", id, err)
		}
	}
	return nil
}

// values is a url.Values of name, value pairs.
func values(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}
