package schema

import "reflect"

// Providers are the known values of a translation's `provider`: the
// platform's public documentation lists them (the seed's <mt_engine_N>
// placeholders are google ... watson).
func Providers() []string {
	return []string{"tm", "global_tm", "google", "google_automl", "microsoft", "crowdin", "deepl", "modernmt", "amazon", "watson", "custom_mt", "ai"}
}

// MTProviders are the providers that are machine translation engines
// (`is translated by mt`).
func MTProviders() []string {
	return []string{"google", "google_automl", "microsoft", "crowdin", "deepl", "modernmt", "amazon", "watson", "custom_mt"}
}

// TMProviders are the providers that are translation memories
// (`is translated by tm`).
func TMProviders() []string { return []string{"tm", "global_tm"} }

// StringTypes are the values of SourceString.Type.
func StringTypes() []string { return []string{"plain", "plural", "icu", "asset"} }

// PluralForms are the values of a translation's `plural form`: "none" for
// a string without plurals, else a CLDR plural category.
func PluralForms() []string { return []string{"none", "zero", "one", "two", "few", "many", "other"} }

// The enumerations of glossary term fields, from the platform's reference.
func PartsOfSpeech() []string {
	return []string{"noun", "verb", "adj", "pron", "propn", "det", "adv", "adp", "cconj", "sconj", "num", "intj", "aux", "prt", "sym", "x"}
}

// TermStatuses are the values of a glossary term's `status`.
func TermStatuses() []string {
	return []string{"preferred", "admitted", "not_recommended", "obsolete", "draft"}
}

// TermTypes are the values of a glossary term's `type`.
func TermTypes() []string {
	return []string{"full_form", "acronym", "abbreviation", "short_form", "phrase", "variant"}
}

// TermGenders are the values of a glossary term's `gender`.
func TermGenders() []string { return []string{"masculine", "feminine", "neuter", "common", "other"} }

// Names of the contexts.
const (
	CtxStrings      = "strings"
	CtxTranslations = "translations"
	CtxTM           = "tm"
	CtxGlossary     = "glossary"
	CtxConcepts     = "concepts"
)

// field builders, to keep the tables below readable.

func fld(name, goName string, t Type, doc string) *Field {
	return &Field{Name: name, GoName: goName, Type: t, Doc: doc}
}

func null(f *Field) *Field { f.Nullable = true; return f }

func enum(f *Field, values []string) *Field { f.Enum = values; return f }

func enterprise(f *Field) *Field { f.Edition = Enterprise; return f }

func equals(name, goName, value, doc string) *Field {
	return &Field{Name: name, GoName: goName, Type: TBool, Equals: value, Doc: doc}
}

func negate(name, goName, doc string) *Field {
	return &Field{Name: name, GoName: goName, Type: TBool, Negate: true, Doc: doc}
}

func record(o *Object) Type     { return Type{Kind: Record, Obj: o} }
func collection(o *Object) Type { return Type{Kind: Collection, Obj: o} }

func goType[T any]() reflect.Type { return reflect.TypeFor[T]() }

// New builds the catalog: the five contexts of the language (strings,
// translations, tm, glossary, concepts) and every object reachable from
// them. Each call builds fresh values; the result is not modified
// afterwards.
func New() *Catalog {
	userObj := NewObject("user", goType[UserRef](),
		fld("id", "ID", TInt, "Numeric id of the user."),
		fld("login", "Login", TString, "Login (username) of the user, as in @user:\"login\"."),
	)
	tUser := Type{Kind: User, Obj: userObj}

	vote := NewObject("vote", goType[Vote](),
		equals("is up", "Mark", "up", "The vote is an up vote."),
		equals("is down", "Mark", "down", "The vote is a down vote."),
		fld("user", "User", tUser, "User who voted; compare with @user:\"login\" or an id."),
		fld("added", "Added", TDatetime, "When the vote was cast."),
	)
	approval := NewObject("approval", goType[Approval](),
		fld("user", "User", tUser, "User who approved; compare with @user:\"login\" or an id."),
		fld("added", "Added", TDatetime, "When the approval was given."),
	)

	// translationFields are the fields of the translations context root;
	// the element of a string's `translations` adds `language`.
	translationFields := func(withLanguage bool) []*Field {
		fs := []*Field{
			fld("text", "Text", TString, "Translation text."),
			enum(fld("plural form", "PluralForm", TString, "Plural category of the translation (one, few, many, other, ...); none for a string without plurals."), PluralForms()),
			fld("is pre translated", "IsPreTranslated", TBool, "The translation was added through pre-translation."),
			enum(null(fld("provider", "Provider", TString, "Origin of the translation (tm, global_tm, an MT engine, custom_mt, ai); absent for a translation written by a person.")), Providers()),
		}
		if withLanguage {
			fs = append(fs, fld("language", "Language", TLanguage, "Target language; compare with @language:\"code\"."))
		}
		return append(fs,
			fld("user", "User", tUser, "User who added the translation; compare with @user:\"login\" or an id."),
			fld("votes", "Votes", collection(vote), "Votes on the translation."),
			fld("approvals", "Approvals", collection(approval), "Approvals of the translation."),
			fld("updated", "Updated", TDatetime, "When the translation was last updated."),
		)
	}
	translation := NewObject("translation", goType[Translation](), translationFields(true)...)
	translationRoot := NewObject("translation (translations context)", goType[Translation](), translationFields(false)...)

	comment := NewObject("comment", goType[Comment](),
		fld("has issue", "HasIssue", TBool, "The comment reports an issue."),
		fld("has unresolved issue", "HasUnresolvedIssue", TBool, "The comment reports an issue that is not resolved yet."),
		fld("user", "User", tUser, "User who commented; compare with @user:\"login\" or an id."),
	)
	label := NewObject("label", goType[Label](),
		fld("id", "ID", TInt, "Numeric id of the label."),
		fld("title", "Title", TString, "Title of the label."),
		fld("is system", "IsSystem", TBool, "System label holding the source file name, added automatically in string-based projects."),
	)
	file := NewObject("file", goType[File](),
		fld("id", "ID", TInt, "Numeric id of the file."),
		fld("name", "Name", TString, "File name."),
		null(fld("title", "Title", TString, "Title of the file; absent when the file has none.")),
		fld("type", "Type", TString, "File type (json, android, xliff, gettext, ...)."),
		fld("context", "Context", TString, "Context of the file."),
	)
	branch := NewObject("branch", goType[Branch](),
		fld("id", "ID", TInt, "Numeric id of the branch."),
		fld("name", "Name", TString, "Branch name."),
		null(fld("title", "Title", TString, "Title of the branch; absent when the branch has none.")),
	)
	customField := NewObject("custom field", goType[CustomField](),
		fld("name", "Name", TString, "Name of the custom field."),
		fld("slug", "Slug", TString, "Slug (identifier) of the custom field."),
		fld("value", "Value", TString, "Value of the custom field for this string."),
		fld("type", "Type", TString, "Kind of the custom field (text, select, checkbox, ...)."),
	)
	screenshot := NewObject("screenshot", goType[Screenshot](),
		fld("id", "ID", TInt, "Numeric id of the screenshot (the seed does not show screenshot fields; id and name are the project's choice)."),
		fld("name", "Name", TString, "Name of the screenshot (the seed does not show screenshot fields; id and name are the project's choice)."),
	)

	qa := func(name, goName, what string) *Field {
		return fld(name, goName, TBool, "The top translation has "+what+" QA issues.")
	}
	summary := NewObject("languages summary element", goType[LanguageSummary](),
		fld("language", "Language", TLanguage, "Language of the summary; compare with @language:\"code\"."),
		fld("is translated", "IsTranslated", TBool, "Translated (every plural form, for plural strings)."),
		fld("is partially translated", "IsPartiallyTranslated", TBool, "Partially translated: some but not all plural forms."),
		fld("is approved", "IsApproved", TBool, "Approved (every plural form, for plural strings)."),
		fld("is partially approved", "IsPartiallyApproved", TBool, "Partially approved: some but not all plural forms."),
		func() *Field {
			f := null(fld("translation updated", "TranslationUpdated", TDatetime, "When a translation was last edited; absent if never. Stands as a bool too: true when set."))
			f.BoolAlso = true
			return f
		}(),
		fld("is auto translated", "IsAutoTranslated", TBool, "Translated by TM, MT or AI."),
		fld("is translated by tm", "IsTranslatedByTM", TBool, "Translated by a translation memory."),
		fld("is translated by mt", "IsTranslatedByMT", TBool, "Translated by machine translation."),
		fld("is translated by ai", "IsTranslatedByAI", TBool, "Translated by AI."),
		fld("is source changed after translation", "IsSourceChangedAfterTranslation", TBool, "The source text changed after the translation was made."),
		fld("has translation as source", "HasTranslationAsSource", TBool, "The translation equals the source text."),
		fld("has translation after approval", "HasTranslationAfterApproval", TBool, "A translation was added after one was approved."),
		fld("has shared translation", "HasSharedTranslation", TBool, "A duplicate takes its translation from its master string."),
		fld("has qa issues", "HasQAIssues", TBool, "The top translation has any QA issue."),
		qa("has empty translation qa issues", "HasEmptyTranslationQAIssues", "empty translation"),
		qa("has translation length qa issues", "HasTranslationLengthQAIssues", "translation length"),
		qa("has tags mismatch qa issues", "HasTagsMismatchQAIssues", "tags mismatch"),
		qa("has spaces mismatch qa issues", "HasSpacesMismatchQAIssues", "spaces mismatch"),
		qa("has variables mismatch qa issues", "HasVariablesMismatchQAIssues", "variables mismatch"),
		qa("has punctuation mismatch qa issues", "HasPunctuationMismatchQAIssues", "punctuation mismatch"),
		qa("has character case mismatch qa issues", "HasCharacterCaseMismatchQAIssues", "character case mismatch"),
		qa("has special characters mismatch qa issues", "HasSpecialCharactersMismatchQAIssues", "special characters mismatch"),
		qa("has incorrect translation qa issues", "HasIncorrectTranslationQAIssues", "incorrect translation"),
		qa("has spelling qa issues", "HasSpellingQAIssues", "spelling"),
		qa("has icu syntax qa issues", "HasICUSyntaxQAIssues", "ICU syntax"),
		qa("has terms qa issues", "HasTermsQAIssues", "glossary terms"),
		qa("has duplicate translation qa issues", "HasDuplicateTranslationQAIssues", "duplicate translation"),
		qa("has ftl syntax qa issues", "HasFTLSyntaxQAIssues", "FTL syntax"),
		qa("has android syntax qa issues", "HasAndroidSyntaxQAIssues", "Android syntax"),
		qa("has custom qa issues", "HasCustomQAIssues", "custom"),
		qa("has numbers mismatch qa issues", "HasNumbersMismatchQAIssues", "numbers mismatch"),
		qa("has ai qa issues", "HasAIQAIssues", "AI"),
		qa("has outdated translation qa issues", "HasOutdatedTranslationQAIssues", "outdated translation"),
		qa("has mdx syntax qa issues", "HasMDXSyntaxQAIssues", "MDX syntax"),
		fld("rating", "Rating", TInt, "Rating of the top translation: up votes minus down votes."),
		fld("approvalsCount", "ApprovalsCount", TInt, "Number of approvals of the language's translations."),
	)

	sourceString := NewObject("source string", goType[SourceString](),
		equals("type is plain", "Type", "plain", "Plain text string."),
		equals("type is plural", "Type", "plural", "String with plural forms."),
		equals("type is icu", "Type", "icu", "ICU message string."),
		equals("type is asset", "Type", "asset", "The string is an asset."),
		fld("text", "Text", TString, "Source text."),
		fld("identifier", "Identifier", TString, "Key of the string."),
		fld("context", "Context", TString, "Context of the string."),
		null(fld("max length", "MaxLength", TInt, "Maximum length of a translation; absent when there is no limit.")),
		negate("is visible", "IsHidden", "The string is visible to translators (not hidden)."),
		fld("is hidden", "IsHidden", TBool, "The string is hidden from translators."),
		fld("is duplicate", "IsDuplicate", TBool, "The string duplicates a master string."),
		enterprise(fld("isPassedWorkflow", "IsPassedWorkflow", TBool, "The string passed through a project workflow (enterprise edition only).")),
		null(fld("file", "File", record(file), "File of the string (id, name, title, type, context); absent in string-based projects.")),
		null(fld("branch", "Branch", record(branch), "Branch of the string (id, name, title); absent for strings outside a branch.")),
		fld("comments", "Comments", collection(comment), "Comments on the string."),
		fld("screenshots", "Screenshots", collection(screenshot), "Screenshots tagged with the string."),
		fld("translations", "Translations", collection(translation), "Translations of the string, in every language."),
		fld("languages summary", "LanguagesSummary", collection(summary), "Top translations, one element per translated language."),
		fld("labels", "Labels", collection(label), "Labels of the string."),
		enterprise(fld("fields", "Fields", collection(customField), "Custom fields of the string (enterprise edition only).")),
		fld("added", "Added", TDatetime, "When the string was added."),
		null(fld("updated", "Updated", TDatetime, "When the string was last updated; absent if never.")),
	)

	tmRecord := NewObject("TM record", goType[TMRecord](),
		fld("id", "ID", TInt, "Numeric id of the record."),
		fld("text", "Text", TString, "Text of the record."),
		fld("usageCount", "UsageCount", TInt, "Number of times the record has been used."),
		fld("createdBy", "CreatedBy", tUser, "User who created the record; compare with @user:\"login\" or an id."),
		fld("updatedBy", "UpdatedBy", tUser, "User who last updated the record; compare with @user:\"login\" or an id."),
		fld("createdAt", "CreatedAt", TDatetime, "When the record was created."),
		fld("updatedAt", "UpdatedAt", TDatetime, "When the record was last updated."),
	)
	tmSegment := NewObject("TM segment", goType[TMSegment](),
		fld("records", "Records", collection(tmRecord), "Records of the segment, one per language."),
	)

	term := NewObject("glossary term", goType[GlossaryTerm](),
		fld("id", "ID", TInt, "Numeric id of the term."),
		fld("user", "User", tUser, "User who added the term; compare with @user:\"login\" or an id."),
		fld("concept", "ConceptID", TInt, "Id of the term's concept."),
		fld("text", "Text", TString, "Text of the term."),
		fld("description", "Description", TString, "Description of the term."),
		fld("note", "Note", TString, "Note on the term."),
		fld("lemma", "Lemma", TString, "Lemma (base form) of the term."),
		fld("url", "URL", TString, "URL of a reference for the term."),
		fld("language", "Language", TLanguage, "Language of the term; compare with @language:\"code\"."),
		enum(null(fld("partOfSpeech", "PartOfSpeech", TString, "Part of speech; absent when not set.")), PartsOfSpeech()),
		enum(null(fld("status", "Status", TString, "Status of the term; absent when not set.")), TermStatuses()),
		enum(null(fld("type", "Type", TString, "Type of the term; absent when not set.")), TermTypes()),
		enum(null(fld("gender", "Gender", TString, "Grammatical gender; absent when not set.")), TermGenders()),
		fld("createdAt", "CreatedAt", TDatetime, "When the term was created."),
		null(fld("updatedAt", "UpdatedAt", TDatetime, "When the term was last updated; absent if never.")),
	)
	concept := NewObject("glossary concept", goType[GlossaryConcept](),
		fld("id", "ID", TInt, "Numeric id of the concept."),
		fld("user", "User", tUser, "User who added the concept; compare with @user:\"login\" or an id."),
		fld("subject", "Subject", TString, "Subject field of the concept."),
		fld("definition", "Definition", TString, "Definition of the concept."),
		fld("url", "URL", TString, "URL of a reference for the concept."),
		fld("note", "Note", TString, "Note on the concept."),
		fld("translatable", "Translatable", TBool, "The concept's terms are translatable."),
		fld("createdAt", "CreatedAt", TDatetime, "When the concept was created."),
		null(fld("updatedAt", "UpdatedAt", TDatetime, "When the concept was last updated; absent if never.")),
	)

	return &Catalog{
		Contexts: []*Context{
			{Name: CtxStrings, Title: "source strings", Aliases: []string{"string", "source strings"},
				Endpoint: "GET /api/v2/projects/{projectId}/strings?croql=", Root: sourceString},
			{Name: CtxTranslations, Title: "translations", Aliases: []string{"translation"},
				Endpoint: "GET /api/v2/projects/{projectId}/languages/{languageId}/translations?croql=", Root: translationRoot},
			{Name: CtxTM, Title: "TM segments", Aliases: []string{"segments", "tm segments"},
				Endpoint: "GET /api/v2/tms/{tmId}/segments?croql=", Root: tmSegment},
			{Name: CtxGlossary, Title: "glossary terms", Aliases: []string{"terms", "glossary terms"},
				Endpoint: "GET /api/v2/glossaries/{glossaryId}/terms?croql=", Root: term},
			{Name: CtxConcepts, Title: "glossary concepts", Aliases: []string{"concept", "glossary concepts"},
				Root: concept},
		},
		Objects: []*Object{
			sourceString, file, branch, comment, screenshot, translation, vote, approval,
			summary, label, customField, translationRoot, tmSegment, tmRecord, term, concept, userObj,
		},
		UserObj: userObj,
	}
}
