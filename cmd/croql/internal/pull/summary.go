package pull

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

// summaryFlags are the flags of a languages summary element that no list
// of the API carries and the translations read cannot give (the QA checks'
// findings; the flags of the top translation, which is chosen by the
// translations' update times the API does not carry: whether the source
// changed after it, whether it equals the source, where it came from,
// whether it is shared): each is read as the strings a CroQL query on the
// strings list selects, per target language.
var summaryFlags = []string{
	"isSourceChangedAfterTranslation", "hasTranslationAsSource", "hasSharedTranslation",
	"isAutoTranslated", "isTranslatedByTm", "isTranslatedByMt", "isTranslatedByAi",
	"hasEmptyTranslationQaIssues", "hasTranslationLengthQaIssues", "hasTagsMismatchQaIssues",
	"hasSpacesMismatchQaIssues", "hasVariablesMismatchQaIssues", "hasPunctuationMismatchQaIssues",
	"hasCharacterCaseMismatchQaIssues", "hasSpecialCharactersMismatchQaIssues", "hasIncorrectTranslationQaIssues",
	"hasSpellingQaIssues", "hasIcuSyntaxQaIssues", "hasTermsQaIssues", "hasDuplicateTranslationQaIssues",
	"hasFtlSyntaxQaIssues", "hasAndroidSyntaxQaIssues", "hasCustomQaIssues", "hasNumbersMismatchQaIssues",
	"hasAiQaIssues", "hasOutdatedTranslationQaIssues", "hasMdxSyntaxQaIssues",
}

// croqlName spells a member name as CroQL words: hasIcuSyntaxQaIssues is
// `has icu syntax qa issues`.
func croqlName(member string) string {
	var b strings.Builder
	for i, r := range member {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte(' ')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// flagSets are the summary flags set, by language and string id: bit i
// is summaryFlags[i].
type flagSets map[string]map[int64]uint32

// readFlags asks the strings list, per target language and flag, which
// strings have it.
func (p *puller) readFlags(ctx context.Context) error {
	p.flags = flagSets{}
	for _, lang := range p.proj.TargetLanguageIDs {
		set := map[int64]uint32{}
		p.flags[lang] = set
		lq, err := json.Marshal(lang)
		if err != nil {
			return fmt.Errorf("pull: %w", err)
		}
		for i, f := range summaryFlags {
			q := fmt.Sprintf("count of languages summary where (language = @language:%s and %s) > 0", lq, croqlName(f))
			if err := each(ctx, p.c, p.base+"/strings", values("croql", q), func(s *struct {
				ID int64 `json:"id"`
			}) error {
				set[s.ID] |= 1 << i
				return nil
			}); err != nil {
				return fmt.Errorf("pull: languages summary (%s, %s): %w", lang, f, err)
			}
			p.progress("languages summary flags (%s): %d of %d", lang, i+1, len(summaryFlags))
		}
	}
	return nil
}

// summarize appends s's languages summary: derived from its translations
// by the platform's rules (demo.Summarize), with the flags read.
func (p *puller) summarize(s *schema.SourceString) error {
	for _, lang := range p.proj.TargetLanguageIDs {
		l, ok := demo.Summarize(s, lang, p.langs[lang])
		if !ok {
			continue
		}
		bits := p.flags[lang][s.ID]
		set := map[string]bool{}
		for i, f := range summaryFlags {
			set[f] = bits&(1<<i) != 0
		}
		if bits != 0 || l.IsSourceChangedAfterTranslation || l.HasEmptyTranslationQAIssues || l.HasTranslationLengthQAIssues ||
			l.HasTranslationAsSource || l.HasSharedTranslation || l.IsAutoTranslated {
			b, err := json.Marshal(set)
			if err != nil {
				return fmt.Errorf("pull: %w", err)
			}
			if err := json.Unmarshal(b, &l); err != nil {
				return fmt.Errorf("pull: string %d: languages summary: %w", s.ID, err)
			}
		}
		l.HasQAIssues = demo.AnyQAIssue(&l)
		s.LanguagesSummary = append(s.LanguagesSummary, l)
	}
	return nil
}
