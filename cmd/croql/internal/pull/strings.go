package pull

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"sync"

	"github.com/crowdin/crowdin-api-client-go/crowdin/model"

	"github.com/croql/croql/schema"
)

// approval and vote are the approvals and votes of the project, kept
// compact and sorted by translation id until their translation is
// written.
type approval struct {
	tr, user int64
	at       schema.Time
}

type vote struct {
	tr, user int64
	at       schema.Time
	up       bool
}

type marks struct {
	appr  []approval
	votes []vote
}

// readMarks reads the approvals and votes of every target language.
func (p *puller) readMarks(ctx context.Context) error {
	m := &marks{}
	for _, lang := range p.proj.TargetLanguageIDs {
		if err := each(ctx, p.c, p.base+"/approvals", values("languageId", lang), func(a *model.Approval) error {
			at, _, err := parseTime(a.CreatedAt)
			if err != nil {
				return fmt.Errorf("approval of translation %d: createdAt: %w", a.TranslationID, err)
			}
			m.appr = append(m.appr, approval{tr: int64(a.TranslationID), user: userID(a.User), at: at})
			p.progress("approvals (%s): %d", lang, len(m.appr))
			return nil
		}); err != nil {
			return fmt.Errorf("pull: approvals: %w", err)
		}
		if err := each(ctx, p.c, p.base+"/votes", values("languageId", lang), func(v *model.Vote) error {
			at, _, err := parseTime(v.VotedAt)
			if err != nil {
				return fmt.Errorf("vote on translation %d: votedAt: %w", v.TranslationID, err)
			}
			m.votes = append(m.votes, vote{tr: int64(v.TranslationID), user: userID(v.User), at: at, up: v.Mark == "up"})
			p.progress("votes (%s): %d", lang, len(m.votes))
			return nil
		}); err != nil {
			return fmt.Errorf("pull: votes: %w", err)
		}
	}
	slices.SortStableFunc(m.appr, func(a, b approval) int { return cmp.Compare(a.tr, b.tr) })
	slices.SortStableFunc(m.votes, func(a, b vote) int { return cmp.Compare(a.tr, b.tr) })
	p.st.Approvals, p.st.Votes = len(m.appr), len(m.votes)
	p.marks = m
	return nil
}

func userID(u *model.ShortUser) int64 {
	if u == nil {
		return 0
	}
	return int64(u.ID)
}

// of fills t's approvals and votes.
func (m *marks) of(t *schema.Translation) {
	i, _ := slices.BinarySearchFunc(m.appr, t.ID, func(a approval, id int64) int { return cmp.Compare(a.tr, id) })
	for ; i < len(m.appr) && m.appr[i].tr == t.ID; i++ {
		t.Approvals = append(t.Approvals, schema.Approval{User: m.appr[i].user, Added: m.appr[i].at})
	}
	i, _ = slices.BinarySearchFunc(m.votes, t.ID, func(v vote, id int64) int { return cmp.Compare(v.tr, id) })
	for ; i < len(m.votes) && m.votes[i].tr == t.ID; i++ {
		mark := "down"
		if m.votes[i].up {
			mark = "up"
		}
		t.Votes = append(t.Votes, schema.Vote{Mark: mark, User: m.votes[i].user, Added: m.votes[i].at})
	}
}

// rawString is the platform's String, read raw: the client's model cannot
// hold the text of a plural string (an object of forms).
type rawString struct {
	ID             int64           `json:"id"`
	Type           string          `json:"type"`
	HasPlurals     bool            `json:"hasPlurals"`
	Text           json.RawMessage `json:"text"`
	Identifier     string          `json:"identifier"`
	Context        string          `json:"context"`
	MaxLength      int64           `json:"maxLength"`
	IsHidden       bool            `json:"isHidden"`
	IsDuplicate    bool            `json:"isDuplicate"`
	MasterStringID *int64          `json:"masterStringId"`
	FileID         *int64          `json:"fileId"`
	BranchID       *int64          `json:"branchId"`
	LabelIDs       []int64         `json:"labelIds"`
	CreatedAt      schema.Time     `json:"createdAt"`
	UpdatedAt      *schema.Time    `json:"updatedAt"`
}

// rawTranslation is the platform's StringTranslation, read raw: the
// client has no model of it with a nullable provider.
type rawTranslation struct {
	ID                 int64            `json:"id"`
	Text               string           `json:"text"`
	PluralCategoryName string           `json:"pluralCategoryName"`
	IsPreTranslated    bool             `json:"isPreTranslated"`
	Provider           *string          `json:"provider"`
	User               *model.ShortUser `json:"user"`
	CreatedAt          schema.Time      `json:"createdAt"`
}

// source converts a platform string (its translations not yet read).
func (p *puller) source(r *rawString) (schema.SourceString, error) {
	s := schema.SourceString{ID: r.ID, Identifier: r.Identifier, Context: r.Context, IsHidden: r.IsHidden,
		IsDuplicate: r.IsDuplicate, Added: r.CreatedAt, Updated: r.UpdatedAt}
	switch {
	case r.HasPlurals:
		s.Type = "plural"
	case r.Type == "icu" || r.Type == "asset":
		s.Type = r.Type
	default:
		s.Type = "plain"
	}
	if len(r.Text) > 0 && r.Text[0] == '{' {
		// A plural string's forms: the data format keeps the "other" one.
		var forms map[string]string
		if err := json.Unmarshal(r.Text, &forms); err != nil {
			return s, fmt.Errorf("string %d: text: %w", r.ID, err)
		}
		s.Text = forms["other"]
	} else if len(r.Text) > 0 && string(r.Text) != "null" {
		if err := json.Unmarshal(r.Text, &s.Text); err != nil {
			return s, fmt.Errorf("string %d: text: %w", r.ID, err)
		}
	}
	if r.MaxLength > 0 {
		s.MaxLength = &r.MaxLength
	}
	if r.FileID != nil {
		if f, ok := p.files[*r.FileID]; ok {
			s.File = f
		} else {
			s.File = &schema.File{ID: *r.FileID}
		}
	}
	if r.BranchID != nil {
		if b, ok := p.brs[*r.BranchID]; ok {
			s.Branch = b
		} else {
			s.Branch = &schema.Branch{ID: *r.BranchID}
		}
	}
	for _, id := range r.LabelIDs {
		l, ok := p.lbls[id]
		if !ok {
			l = schema.Label{ID: id}
		}
		s.Labels = append(s.Labels, l)
	}
	return s, nil
}

// strings writes the strings page by page, each with its translations,
// comments and languages summary.
func (p *puller) strings(ctx context.Context) error {
	cc := &comments{p: p}
	q := values("orderBy", "id")
	for offset := 0; ; offset += PageSize {
		q.Set("limit", strconv.Itoa(PageSize))
		q.Set("offset", strconv.Itoa(offset))
		var pg page[rawString]
		if err := getJSON(ctx, p.c, p.base+"/strings", query(q), &pg); err != nil {
			return fmt.Errorf("pull: GET %s/strings?%s: %w", p.base, q.Encode(), err)
		}
		if err := p.writePage(ctx, pg, cc); err != nil {
			return err
		}
		if len(pg.Data) < PageSize {
			return nil
		}
	}
}

// writePage reads the translations of a page of strings and writes them.
func (p *puller) writePage(ctx context.Context, pg page[rawString], cc *comments) error {
	strs := make([]schema.SourceString, len(pg.Data))
	for i := range pg.Data {
		var err error
		if strs[i], err = p.source(&pg.Data[i].Data); err != nil {
			return fmt.Errorf("pull: %w", err)
		}
	}
	trs, err := p.translations(ctx, strs)
	if err != nil {
		return err
	}
	nl := len(p.proj.TargetLanguageIDs)
	for i := range strs {
		s := &strs[i]
		for j, lang := range p.proj.TargetLanguageIDs {
			for _, r := range trs[i*nl+j] {
				t := schema.Translation{ID: r.ID, StringID: s.ID, Text: r.Text, PluralForm: r.PluralCategoryName,
					IsPreTranslated: r.IsPreTranslated, Provider: r.Provider, Language: lang, User: userID(r.User),
					Added: r.CreatedAt, Updated: r.CreatedAt}
				if s.Type != "plural" {
					t.PluralForm = "none"
				}
				if owner, ok := p.owner[t.ID]; ok && s.IsDuplicate {
					t.StringID = owner
				} else if !s.IsDuplicate {
					p.owner[t.ID] = s.ID
				}
				p.marks.of(&t)
				s.Translations = append(s.Translations, t)
				if t.StringID == s.ID {
					p.st.Translations++
				}
			}
		}
		if err := p.summarize(s); err != nil {
			return err
		}
		if s.Comments, err = cc.of(ctx, s.ID); err != nil {
			return err
		}
		p.st.Comments += len(s.Comments)
		if err := p.nw.Write(s); err != nil {
			return fmt.Errorf("pull: %w", err)
		}
		p.st.Strings++
	}
	p.progress("%d strings, %d translations", p.st.Strings, p.st.Translations)
	return nil
}

// translations reads the translations of the page's strings into each
// target language: per language, in bulk from the language's list, and
// for a string that has more than one translation of a form in the
// language, from the string translations list; o.Concurrency requests
// at a time. Element i*len(languages)+j holds string i's into language j.
func (p *puller) translations(ctx context.Context, strs []schema.SourceString) ([][]rawTranslation, error) {
	langs := p.proj.TargetLanguageIDs
	nl := len(langs)
	out := make([][]rawTranslation, len(strs)*nl)
	// A job below nl reads language job in bulk; job nl+k reads string
	// k/nl's translations into language k%nl when it has several of a form.
	jobs := make([]int, 0, nl)
	for j := range langs {
		jobs = append(jobs, j)
	}
	for i := range strs {
		for j, lang := range langs {
			if _, ok := p.bulk.multi[lang][strs[i].ID]; ok {
				jobs = append(jobs, nl+i*nl+j)
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	feed := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range min(p.o.Concurrency, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range feed {
				if err := p.translationJob(ctx, strs, job, out); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
send:
	for _, job := range jobs {
		select {
		case feed <- job:
		case <-ctx.Done():
			break send
		}
	}
	close(feed)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, ctx.Err()
}

// translationJob reads one job of translations (see translations).
func (p *puller) translationJob(ctx context.Context, strs []schema.SourceString, job int, out [][]rawTranslation) error {
	langs := p.proj.TargetLanguageIDs
	nl := len(langs)
	if job < nl {
		return p.bulkTranslations(ctx, strs, job, out)
	}
	k := job - nl
	s, lang := &strs[k/nl], langs[k%nl]
	q := values("stringId", strconv.FormatInt(s.ID, 10), "languageId", lang)
	p.perString.Add(1)
	err := each(ctx, p.c, p.base+"/translations", q, func(t *rawTranslation) error {
		out[k] = append(out[k], *t)
		return nil
	})
	if err != nil {
		return fmt.Errorf("pull: string %d: translations (%s): %w", s.ID, lang, err)
	}
	return nil
}

// comments walks the project's comments in string order beside the
// strings (GET …/comments?orderBy=stringId), a page at a time.
type comments struct {
	p      *puller
	buf    []model.StringComment
	offset int
	done   bool
}

// of returns the comments of string id; the strings come in id order.
func (c *comments) of(ctx context.Context, id int64) ([]schema.Comment, error) {
	var out []schema.Comment
	for {
		for len(c.buf) > 0 && int64(c.buf[0].StringID) < id {
			c.buf = c.buf[1:]
		}
		for len(c.buf) > 0 && int64(c.buf[0].StringID) == id {
			m := &c.buf[0]
			at, _, err := parseTime(m.CreatedAt)
			if err != nil {
				return nil, fmt.Errorf("pull: comment %d: createdAt: %w", m.ID, err)
			}
			issue := m.Type == "issue"
			out = append(out, schema.Comment{ID: int64(m.ID), Text: m.Text, User: int64(m.UserID), HasIssue: issue,
				HasUnresolvedIssue: issue && m.IssueStatus == "unresolved", Added: at})
			c.buf = c.buf[1:]
		}
		if len(c.buf) > 0 || c.done {
			return out, nil
		}
		if err := c.next(ctx); err != nil {
			return nil, err
		}
	}
}

func (c *comments) next(ctx context.Context) error {
	q := url.Values{"orderBy": {"stringId"}, "limit": {strconv.Itoa(PageSize)}, "offset": {strconv.Itoa(c.offset)}}
	var pg page[model.StringComment]
	if err := getJSON(ctx, c.p.c, c.p.base+"/comments", query(q), &pg); err != nil {
		return fmt.Errorf("pull: GET %s/comments?%s: %w", c.p.base, q.Encode(), err)
	}
	c.offset += PageSize
	c.done = len(pg.Data) < PageSize
	for i := range pg.Data {
		c.buf = append(c.buf, pg.Data[i].Data)
	}
	return nil
}
