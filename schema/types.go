package schema

// This file holds the Go types of the objects a query runs on. The
// evaluator reads them through the GoName of each catalog field, so the
// conventions are strict:
//
//   - integers are int64, floats float64, datetimes Time;
//   - a nullable scalar is a pointer (*int64, *string, *Time); nil is the
//     absent value;
//   - an object that may be missing is a pointer (*File, *Branch);
//   - a collection is a slice of structs (never of pointers); nil and empty
//     are the same collection;
//   - a user is stored as its int64 id; the user directory
//     ([Project.Users]) gives the login;
//   - a language is stored as its code, a string ("de", "pt-BR").
//
// JSON names follow the platform's API (camelCase).

// UserRef is a user: what a User value exposes to queries (`id`, `login`).
// It is the Go type of the catalog's user object and of [Project.Users].
type UserRef struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
}

// SourceString is an object of the source strings context.
type SourceString struct {
	ID int64 `json:"id" api:"id"`
	// Type is one of plain, plural, icu, asset (queried as `type is plain`, ...).
	Type       string `json:"type" api:"type"`
	Text       string `json:"text" api:"text"`
	Identifier string `json:"identifier" api:"identifier"`
	Context    string `json:"context" api:"context"`
	// MaxLength is nil when the string has no length limit.
	MaxLength   *int64 `json:"maxLength" api:"maxLength,zero"`
	IsHidden    bool   `json:"isHidden" api:"isHidden"`
	IsDuplicate bool   `json:"isDuplicate" api:"isDuplicate"`
	// IsPassedWorkflow is known in the enterprise edition only.
	IsPassedWorkflow bool `json:"isPassedWorkflow"`
	// File is nil for strings that belong to no file (string-based projects).
	File *File `json:"file" api:"fileId"`
	// Branch is nil for strings outside a branch.
	Branch      *Branch      `json:"branch" api:"branchId"`
	Comments    []Comment    `json:"comments,omitempty"`
	Screenshots []Screenshot `json:"screenshots,omitempty"`
	// Translations are every translation of the string, in every language.
	// A duplicate that shares its master's translations lists them here;
	// their StringID is then the master's id.
	Translations []Translation `json:"translations,omitempty"`
	// LanguagesSummary has one element per language with a translation.
	LanguagesSummary []LanguageSummary `json:"languagesSummary,omitempty"`
	Labels           []Label           `json:"labels,omitempty"`
	// Fields are the custom fields (enterprise edition).
	Fields []CustomField `json:"fields,omitempty"`
	Added  Time          `json:"added" api:"createdAt"`
	// Updated is nil when the string was never changed after it was added.
	Updated *Time `json:"updated" api:"updatedAt"`
	// PluralForms are every form of a plural string, by CLDR category, as
	// the JSON object an upload parsed ({"one": "…", "other": "…"}); Text
	// is its "other" form, which CroQL queries. Empty for other strings
	// and when only the "other" form is known. CroQL does not query it;
	// the platform's API shows the forms as the string's text.
	PluralForms string `json:"-" api:"pluralForms"`
}

// File is the file a source string comes from.
type File struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Title is nil when the file has no title besides its name.
	Title *string `json:"title"`
	// Type is the file format: json, android, xliff, gettext, ...
	Type    string `json:"type"`
	Context string `json:"context"`
}

// Branch is the version branch a source string belongs to.
type Branch struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Title is nil when the branch has no title besides its name.
	Title *string `json:"title"`
}

// Comment is a comment on a source string.
type Comment struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
	// User is the id of the commenter.
	User int64 `json:"user"`
	// HasIssue is true for a comment that reports an issue.
	HasIssue bool `json:"hasIssue"`
	// HasUnresolvedIssue is true for an issue not resolved yet; it implies
	// HasIssue.
	HasUnresolvedIssue bool `json:"hasUnresolvedIssue"`
	Added              Time `json:"added"`
}

// Screenshot is a screenshot tagged with a source string.
type Screenshot struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Label is a label of a source string.
type Label struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
	// IsSystem marks the label the platform adds in string-based projects,
	// holding the source file name.
	IsSystem bool `json:"isSystem"`
}

// CustomField is a custom field of a source string (enterprise edition).
type CustomField struct {
	Name  string `json:"name"`
	Slug  string `json:"slug"`
	Value string `json:"value"`
	// Type is the field's kind: text, select, checkbox, number, date, url, ...
	Type string `json:"type"`
}

// Translation is one translation of a source string into one language: an
// element of SourceString.Translations and an object of the translations
// context.
type Translation struct {
	ID int64 `json:"id" api:"translationId"`
	// StringID is the id of the source string the translation was made for.
	StringID int64  `json:"stringId"`
	Text     string `json:"text" api:"text"`
	// PluralForm is the plural category (one, few, many, other, ...) for a
	// plural string and "none" otherwise.
	PluralForm      string `json:"pluralForm" api:"pluralCategoryName"`
	IsPreTranslated bool   `json:"isPreTranslated" api:"isPreTranslated"`
	// Provider is nil for a translation a person wrote; otherwise tm,
	// global_tm, an MT engine (deepl, google, ...), custom_mt or ai.
	Provider *string `json:"provider" api:"provider"`
	// Language is the code of the target language.
	Language string `json:"language" api:"languageId"`
	// User is the id of the user who added the translation.
	User      int64      `json:"user" api:"userId"`
	Votes     []Vote     `json:"votes,omitempty"`
	Approvals []Approval `json:"approvals,omitempty"`
	// Added is when the translation was added (not queryable; it tells
	// whether the translation was edited since).
	Added Time `json:"added"`
	// Updated is when the translation was last changed (Added if never).
	Updated Time `json:"updated" api:"updatedAt"`
}

// Vote is a vote on a translation.
type Vote struct {
	// Mark is "up" or "down".
	Mark  string `json:"mark"`
	User  int64  `json:"user"`
	Added Time   `json:"added"`
}

// Approval is an approval of a translation.
type Approval struct {
	User  int64 `json:"user"`
	Added Time  `json:"added"`
}

// LanguageSummary summarises the translations of a source string into one
// language: an element of SourceString.LanguagesSummary. The "top"
// translation is the language's highest-priority one (see docs/data-format.md).
type LanguageSummary struct {
	Language              string `json:"language"`
	IsTranslated          bool   `json:"isTranslated,omitempty"`
	IsPartiallyTranslated bool   `json:"isPartiallyTranslated,omitempty"`
	IsApproved            bool   `json:"isApproved,omitempty"`
	IsPartiallyApproved   bool   `json:"isPartiallyApproved,omitempty"`
	// TranslationUpdated is when a translation of the language was last
	// edited after it was added; nil when none ever was.
	TranslationUpdated              *Time `json:"translationUpdated"`
	IsAutoTranslated                bool  `json:"isAutoTranslated,omitempty"`
	IsTranslatedByTM                bool  `json:"isTranslatedByTm,omitempty"`
	IsTranslatedByMT                bool  `json:"isTranslatedByMt,omitempty"`
	IsTranslatedByAI                bool  `json:"isTranslatedByAi,omitempty"`
	IsSourceChangedAfterTranslation bool  `json:"isSourceChangedAfterTranslation,omitempty"`
	HasTranslationAsSource          bool  `json:"hasTranslationAsSource,omitempty"`
	HasTranslationAfterApproval     bool  `json:"hasTranslationAfterApproval,omitempty"`
	HasSharedTranslation            bool  `json:"hasSharedTranslation,omitempty"`

	HasQAIssues                          bool `json:"hasQaIssues,omitempty"`
	HasEmptyTranslationQAIssues          bool `json:"hasEmptyTranslationQaIssues,omitempty"`
	HasTranslationLengthQAIssues         bool `json:"hasTranslationLengthQaIssues,omitempty"`
	HasTagsMismatchQAIssues              bool `json:"hasTagsMismatchQaIssues,omitempty"`
	HasSpacesMismatchQAIssues            bool `json:"hasSpacesMismatchQaIssues,omitempty"`
	HasVariablesMismatchQAIssues         bool `json:"hasVariablesMismatchQaIssues,omitempty"`
	HasPunctuationMismatchQAIssues       bool `json:"hasPunctuationMismatchQaIssues,omitempty"`
	HasCharacterCaseMismatchQAIssues     bool `json:"hasCharacterCaseMismatchQaIssues,omitempty"`
	HasSpecialCharactersMismatchQAIssues bool `json:"hasSpecialCharactersMismatchQaIssues,omitempty"`
	HasIncorrectTranslationQAIssues      bool `json:"hasIncorrectTranslationQaIssues,omitempty"`
	HasSpellingQAIssues                  bool `json:"hasSpellingQaIssues,omitempty"`
	HasICUSyntaxQAIssues                 bool `json:"hasIcuSyntaxQaIssues,omitempty"`
	HasTermsQAIssues                     bool `json:"hasTermsQaIssues,omitempty"`
	HasDuplicateTranslationQAIssues      bool `json:"hasDuplicateTranslationQaIssues,omitempty"`
	HasFTLSyntaxQAIssues                 bool `json:"hasFtlSyntaxQaIssues,omitempty"`
	HasAndroidSyntaxQAIssues             bool `json:"hasAndroidSyntaxQaIssues,omitempty"`
	HasCustomQAIssues                    bool `json:"hasCustomQaIssues,omitempty"`
	HasNumbersMismatchQAIssues           bool `json:"hasNumbersMismatchQaIssues,omitempty"`
	HasAIQAIssues                        bool `json:"hasAiQaIssues,omitempty"`
	HasOutdatedTranslationQAIssues       bool `json:"hasOutdatedTranslationQaIssues,omitempty"`
	HasMDXSyntaxQAIssues                 bool `json:"hasMdxSyntaxQaIssues,omitempty"`

	// Rating is up votes minus down votes of the top translation.
	Rating int64 `json:"rating"`
	// ApprovalsCount is the number of approvals of the language's translations.
	ApprovalsCount int64 `json:"approvalsCount"`
}

// TMSegment is an object of the TM segments context: one unit of a
// translation memory, with a record per language.
type TMSegment struct {
	ID      int64      `json:"id" api:"id"`
	Records []TMRecord `json:"records,omitempty"`
}

// TMRecord is one language's text of a TM segment.
type TMRecord struct {
	ID int64 `json:"id" api:"id"`
	// Language is the record's language code (not queryable).
	Language   string `json:"languageId" api:"languageId,zero"`
	Text       string `json:"text" api:"text"`
	UsageCount int64  `json:"usageCount" api:"usageCount"`
	CreatedBy  int64  `json:"createdBy" api:"createdBy"`
	UpdatedBy  int64  `json:"updatedBy" api:"updatedBy"`
	CreatedAt  Time   `json:"createdAt" api:"createdAt"`
	UpdatedAt  Time   `json:"updatedAt" api:"updatedAt"`
}

// GlossaryTerm is an object of the glossary terms context.
type GlossaryTerm struct {
	ID   int64 `json:"id" api:"id"`
	User int64 `json:"user" api:"userId"`
	// ConceptID is the id of the term's concept (queried as `concept`).
	ConceptID   int64  `json:"conceptId" api:"conceptId"`
	Text        string `json:"text" api:"text"`
	Description string `json:"description" api:"description"`
	Note        string `json:"note" api:"note"`
	Lemma       string `json:"lemma" api:"lemma"`
	URL         string `json:"url" api:"url"`
	Language    string `json:"languageId" api:"languageId"`
	// PartOfSpeech, Status, Type and Gender are nil when not set.
	PartOfSpeech *string `json:"partOfSpeech" api:"partOfSpeech"`
	Status       *string `json:"status" api:"status"`
	Type         *string `json:"type" api:"type"`
	Gender       *string `json:"gender" api:"gender"`
	CreatedAt    Time    `json:"createdAt" api:"createdAt"`
	// UpdatedAt is nil when the term was never changed.
	UpdatedAt *Time `json:"updatedAt" api:"updatedAt"`
}

// GlossaryConcept is an object of the glossary concepts context.
type GlossaryConcept struct {
	ID           int64  `json:"id"`
	User         int64  `json:"user"`
	Subject      string `json:"subject"`
	Definition   string `json:"definition"`
	URL          string `json:"url"`
	Note         string `json:"note"`
	Translatable bool   `json:"translatable"`
	CreatedAt    Time   `json:"createdAt"`
	// UpdatedAt is nil when the concept was never changed.
	UpdatedAt *Time `json:"updatedAt"`
}
