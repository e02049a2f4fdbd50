package pull

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/crowdin/crowdin-api-client-go/crowdin/model"

	"github.com/croql/croql/schema"
)

// The translations of a page of strings are read in bulk: per target
// language, the language's translations list with the page's stringIds
// (GET …/languages/{languageId}/translations?stringIds=) answers each
// string's top translation (of each plural form) with its id, text,
// plural form, user and createdAt. That is every translation of the
// string in the language unless a form has more than one: those strings
// (the strings list answers which, per language, with a CroQL query read
// before the strings) are read one by one from the string translations
// list (GET …/translations?stringId=&languageId=), the only list that
// answers every translation of a string. So are the duplicates that have
// translations in the language: the language's list answers a
// duplicate's shared translations under the string that has them, and
// the API does not name it (masterStringId may be null). The language's list has no
// provider and no isPreTranslated: they are read, per language, as the
// translations that list selects with `provider = "…"` and with `is pre
// translated` (a translation it answers has the property; a bulk-read
// translation is its string's only one of its form, so it is answered
// when it has it).

// origin is what the language's list does not carry of a translation:
// its provider (1+ the index in schema.Providers, 0 for none) and
// whether it was pre-translated (preTranslated bit).
type origin struct {
	tr  int64
	bit uint8
}

const preTranslated = 0x80

// bulkInfo is what is read before the strings so that a page of strings
// needs one request per language: the strings read one by one, per
// language, and the origins of translations.
type bulkInfo struct {
	multi   map[string]map[int64]struct{}
	origins []origin // sorted by tr; one translation may appear twice
}

// readBulkInfo reads, per target language, the strings whose
// translations the language's list cannot answer whole, and the
// providers and pre-translated flags of the translations.
func (p *puller) readBulkInfo(ctx context.Context) error {
	b := &bulkInfo{multi: map[string]map[int64]struct{}{}}
	for _, lang := range p.proj.TargetLanguageIDs {
		lq, err := json.Marshal(lang)
		if err != nil {
			return fmt.Errorf("pull: %w", err)
		}
		var or []string
		for _, f := range schema.PluralForms() {
			or = append(or, fmt.Sprintf("count of translations where (language = @language:%s and plural form = %q) > 1", lq, f))
		}
		// A duplicate's shared translations are listed under the string
		// that has them, not under the duplicate: read one by one too.
		or = append(or, fmt.Sprintf("is duplicate and count of translations where (language = @language:%s) > 0", lq))
		set := map[int64]struct{}{}
		b.multi[lang] = set
		if err := each(ctx, p.c, p.base+"/strings", values("croql", strings.Join(or, " or ")), func(s *struct {
			ID int64 `json:"id"`
		}) error {
			set[s.ID] = struct{}{}
			return nil
		}); err != nil {
			return fmt.Errorf("pull: strings read one by one (%s): %w", lang, err)
		}
		p.progress("strings read one by one (%s): %d", lang, len(set))
		if err := p.readOrigins(ctx, b, lang); err != nil {
			return err
		}
	}
	slices.SortFunc(b.origins, func(x, y origin) int { return cmp.Compare(x.tr, y.tr) })
	p.bulk = b
	return nil
}

// readOrigins reads the providers and pre-translated flags of lang's
// translations.
func (p *puller) readOrigins(ctx context.Context, b *bulkInfo, lang string) error {
	path := p.base + "/languages/" + url.PathEscape(lang) + "/translations"
	queries := []string{"is pre translated"}
	for _, pr := range schema.Providers() {
		queries = append(queries, "provider = "+strconv.Quote(pr))
	}
	for i, q := range queries {
		bit := uint8(i)
		if i == 0 {
			bit = preTranslated
		}
		if err := each(ctx, p.c, path, values("croql", q), func(t *model.LanguageTranslation) error {
			if len(t.Plurals) == 0 && t.TranslationID != nil {
				b.origins = append(b.origins, origin{tr: int64(*t.TranslationID), bit: bit})
			}
			for _, f := range t.Plurals {
				if f != nil {
					b.origins = append(b.origins, origin{tr: int64(f.TranslationID), bit: bit})
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("pull: translations (%s) where %s: %w", lang, q, err)
		}
		p.progress("providers of translations (%s): %d of %d", lang, i+1, len(queries))
	}
	return nil
}

// originOf sets t's provider and pre-translated flag from the origins
// read.
func (b *bulkInfo) originOf(t *rawTranslation) {
	providers := schema.Providers()
	i, _ := slices.BinarySearchFunc(b.origins, t.ID, func(o origin, id int64) int { return cmp.Compare(o.tr, id) })
	for ; i < len(b.origins) && b.origins[i].tr == t.ID; i++ {
		bit := b.origins[i].bit
		if bit == preTranslated {
			t.IsPreTranslated = true
		} else if int(bit) >= 1 && int(bit) <= len(providers) {
			t.Provider = &providers[bit-1]
		}
	}
}

// bulkTranslations reads the translations into lang of the page's
// strings that the multi set does not name, filling out[i*nl+j] (j is
// lang's index) for string i.
func (p *puller) bulkTranslations(ctx context.Context, strs []schema.SourceString, j int, out [][]rawTranslation) error {
	langs := p.proj.TargetLanguageIDs
	lang, nl := langs[j], len(langs)
	idx := map[int64]int{}
	var ids []string
	for i := range strs {
		if _, ok := p.bulk.multi[lang][strs[i].ID]; ok {
			continue
		}
		if _, ok := idx[strs[i].ID]; !ok {
			idx[strs[i].ID] = i
			ids = append(ids, strconv.FormatInt(strs[i].ID, 10))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	path := p.base + "/languages/" + url.PathEscape(lang) + "/translations"
	q := values("stringIds", strings.Join(ids, ","), "orderBy", "stringId")
	seen := 0
	for offset := 0; seen < len(ids); offset += PageSize {
		q.Set("limit", strconv.Itoa(PageSize))
		q.Set("offset", strconv.Itoa(offset))
		var pg page[model.LanguageTranslation]
		if err := getJSON(ctx, p.c, path, query(q), &pg); err != nil {
			return fmt.Errorf("pull: GET %s?stringIds=(%d strings)&languageId=%s: %w", path, len(ids), lang, err)
		}
		for k := range pg.Data {
			t := &pg.Data[k].Data
			i, ok := idx[int64(t.StringID)]
			if !ok {
				continue
			}
			if err := p.fromLanguageList(t, &out[i*nl+j]); err != nil {
				return fmt.Errorf("pull: string %d: translations (%s): %w", t.StringID, lang, err)
			}
		}
		seen += len(pg.Data)
		if len(pg.Data) < PageSize {
			break
		}
	}
	return nil
}

// fromLanguageList appends the translations of t, one object of the
// language's translations list (the client's LanguageTranslation: plain,
// ICU, or plural with plurals[]), to slot, with their origins.
func (p *puller) fromLanguageList(t *model.LanguageTranslation, slot *[]rawTranslation) error {
	add := func(id int, text, form string, user *model.ShortUser, created string) error {
		at, _, err := parseTime(created)
		if err != nil {
			return fmt.Errorf("translation %d: createdAt: %w", id, err)
		}
		r := rawTranslation{ID: int64(id), Text: text, PluralCategoryName: form, User: user, CreatedAt: at}
		p.bulk.originOf(&r)
		*slot = append(*slot, r)
		return nil
	}
	if len(t.Plurals) == 0 && t.TranslationID != nil {
		text, created := "", ""
		if t.Text != nil {
			text = *t.Text
		}
		if t.CreatedAt != nil {
			created = *t.CreatedAt
		}
		return add(*t.TranslationID, text, "none", t.User, created)
	}
	for _, f := range t.Plurals {
		if f == nil {
			continue
		}
		if err := add(f.TranslationID, f.Text, f.PluralForm, f.User, f.CreatedAt); err != nil {
			return err
		}
	}
	return nil
}
