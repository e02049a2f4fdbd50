package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// SourceString is a source string as the list endpoints write it (the
// fields croql serve sends; the platform sends more, which are ignored).
type SourceString struct {
	ID          int64   `json:"id"`
	ProjectID   int64   `json:"projectId"`
	FileID      *int64  `json:"fileId"`
	BranchID    *int64  `json:"branchId"`
	Identifier  string  `json:"identifier"`
	Text        any     `json:"text"` // a string, or an object of plural forms on the platform
	Type        string  `json:"type"`
	Context     string  `json:"context"`
	MaxLength   int64   `json:"maxLength"`
	IsHidden    bool    `json:"isHidden"`
	IsDuplicate bool    `json:"isDuplicate"`
	HasPlurals  bool    `json:"hasPlurals"`
	IsIcu       bool    `json:"isIcu"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   *string `json:"updatedAt"`
}

// User is the short user object of a translation.
type User struct {
	ID        int64  `json:"id"`
	Username  string `json:"username"`
	FullName  string `json:"fullName"`
	AvatarURL string `json:"avatarUrl"`
}

// Translation is the translation of one string in one language, as the
// translations list writes it: one object per string, its top
// translation (TranslationID, Text, User, CreatedAt), or for a plural
// string the top translation of each plural form (Plurals).
type Translation struct {
	StringID      int64               `json:"stringId"`
	ContentType   string              `json:"contentType"`
	TranslationID int64               `json:"translationId"`
	Text          string              `json:"text"`
	User          *User               `json:"user"`
	CreatedAt     string              `json:"createdAt"`
	Plurals       []PluralTranslation `json:"plurals"`
}

// PluralTranslation is the top translation of one plural form.
type PluralTranslation struct {
	TranslationID int64  `json:"translationId"`
	Text          string `json:"text"`
	PluralForm    string `json:"pluralForm"`
	User          *User  `json:"user"`
	CreatedAt     string `json:"createdAt"`
}

// TMSegment is a translation memory segment with its records.
type TMSegment struct {
	ID      int64 `json:"id"`
	Records []struct {
		ID         int64  `json:"id"`
		LanguageID string `json:"languageId"`
		Text       string `json:"text"`
		UsageCount int64  `json:"usageCount"`
		CreatedBy  int64  `json:"createdBy"`
		UpdatedBy  int64  `json:"updatedBy"`
		CreatedAt  string `json:"createdAt"`
		UpdatedAt  string `json:"updatedAt"`
	} `json:"records"`
}

// Term is a glossary term.
type Term struct {
	ID           int64   `json:"id"`
	UserID       int64   `json:"userId"`
	GlossaryID   int64   `json:"glossaryId"`
	LanguageID   string  `json:"languageId"`
	Text         string  `json:"text"`
	Description  string  `json:"description"`
	PartOfSpeech *string `json:"partOfSpeech"`
	Status       *string `json:"status"`
	Type         *string `json:"type"`
	Gender       *string `json:"gender"`
	Note         string  `json:"note"`
	URL          string  `json:"url"`
	ConceptID    int64   `json:"conceptId"`
	Lemma        string  `json:"lemma"`
	CreatedAt    string  `json:"createdAt"`
	UpdatedAt    *string `json:"updatedAt"`
}

func decodeAll[T any](raw []json.RawMessage, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, fmt.Errorf("client: decoding an object: %w", err)
		}
	}
	return out, nil
}

// Strings returns every source string of a project matching src (All).
func (c *Client) Strings(ctx context.Context, projectID int64, src string) ([]SourceString, error) {
	return decodeAll[SourceString](c.All(ctx, StringsOf(projectID), src))
}

// Translations returns, for every string with a translation of one
// language matching src, its top translation (Translation).
func (c *Client) Translations(ctx context.Context, projectID int64, languageID, src string) ([]Translation, error) {
	return decodeAll[Translation](c.All(ctx, TranslationsOf(projectID, languageID), src))
}

// Segments returns every TM segment matching src.
func (c *Client) Segments(ctx context.Context, tmID int64, src string) ([]TMSegment, error) {
	return decodeAll[TMSegment](c.All(ctx, SegmentsOf(tmID), src))
}

// Terms returns every glossary term matching src.
func (c *Client) Terms(ctx context.Context, glossaryID int64, src string) ([]Term, error) {
	return decodeAll[Term](c.All(ctx, TermsOf(glossaryID), src))
}
