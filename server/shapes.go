package server

import (
	"strings"
	"time"
	"unicode"

	"github.com/croql/croql/schema"
)

// The platform's API objects, field by field as its official clients
// declare them (npm @crowdin/crowdin-api-client 1.58.0, its .d.ts files;
// Go github.com/crowdin/crowdin-api-client-go v0.18.0, its model
// package): the API's names and value spellings, and the platform's empty
// value (null, "", [] or {}) for a field the data does not hold. CroQL
// keeps its own spellings; only the API's answers are spelled here.

// apiTime writes t as the API does, or null for the zero time.
func apiTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(TimeLayout)
}

// languageShape is the platform's Language object of code: the data
// file's description, or the code alone where the data has none.
func languageShape(p *Project, code string) map[string]any {
	l, ok := p.LanguageInfo[code]
	if !ok {
		l = schema.LanguageInfo{ID: code, Name: code, EditorCode: code, TwoLettersCode: code, Locale: code}
	}
	plurals := l.PluralCategoryNames
	if plurals == nil {
		plurals = []string{}
	}
	return map[string]any{
		"id": l.ID, "name": l.Name, "editorCode": l.EditorCode, "twoLettersCode": l.TwoLettersCode,
		"threeLettersCode": l.ThreeLettersCode, "locale": l.Locale, "androidCode": l.AndroidCode,
		"osxCode": l.OSXCode, "osxLocale": l.OSXLocale, "pluralCategoryNames": plurals,
		"pluralRules": l.PluralRules, "pluralExamples": []string{}, "textDirection": "ltr", "dialectOf": nil,
	}
}

// identifier is the platform's project identifier of a name: lower-case
// ASCII letters and digits, other runs as one hyphen ("Café Shop" →
// "caf-shop").
func identifier(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// projectShape is the platform's Project object (the fields of the
// clients' Project models; the manager settings, which the Go model marks
// omitempty, are left out).
func projectShape(p *Project) map[string]any {
	targets := p.TargetLanguages
	if targets == nil {
		targets = []string{}
	}
	tl := make([]any, len(targets))
	for i, c := range targets {
		tl[i] = languageShape(p, c)
	}
	var source any
	if p.SourceLanguage != "" {
		source = languageShape(p, p.SourceLanguage)
	}
	return map[string]any{
		"id": p.ID, "type": 0, "userId": 0, "groupId": nil,
		"sourceLanguageId": p.SourceLanguage, "targetLanguageIds": targets,
		"sourceLanguage": source, "targetLanguages": tl,
		"languageAccessPolicy": "open", "name": p.Name, "cname": nil, "identifier": identifier(p.Name),
		"description": "", "visibility": "private", "logo": "", "background": "", "publicDownloads": false,
		"createdAt": apiTime(p.Created), "updatedAt": apiTime(p.Updated), "lastActivity": apiTime(p.Updated),
		"webUrl": "", "publicUrl": "", "savingsReportSettingsTemplateId": nil, "fields": map[string]any{},
		"isExternal": false, "externalType": nil, "externalProjectId": nil, "externalOrganizationId": nil,
		"workflowId": nil, "hasCrowdsourcing": false,
	}
}

// tmShape is the platform's TranslationMemory object of a project's TM
// (tmId = projectId).
func tmShape(p *Project, segments int64) map[string]any {
	langs := p.Languages
	if langs == nil {
		langs = []string{}
	}
	return map[string]any{
		"id": p.ID, "groupId": nil, "userId": 0, "name": p.Name + " TM", "languageId": p.SourceLanguage,
		"languageIds": langs, "segmentsCount": segments, "defaultProjectIds": []int64{p.ID},
		"projectIds": []int64{p.ID}, "webUrl": "", "createdAt": apiTime(p.Created),
	}
}

// glossaryShape is the platform's Glossary object of a project's
// glossary (glossaryId = projectId).
func glossaryShape(p *Project, terms int64, langs []string) map[string]any {
	if langs == nil {
		langs = []string{}
	}
	return map[string]any{
		"id": p.ID, "name": p.Name + " Glossary", "groupId": nil, "userId": 0, "terms": terms,
		"languageId": p.SourceLanguage, "languageIds": langs, "defaultProjectIds": []int64{p.ID},
		"projectIds": []int64{p.ID}, "webUrl": "", "createdAt": apiTime(p.Created),
	}
}

// fileShape completes a file row (id, name, title, type, context,
// branchId, createdAt, updatedAt) into the platform's File object.
func fileShape(p *Project, o map[string]any) map[string]any {
	name, _ := o["name"].(string)
	o["projectId"] = p.ID
	o["directoryId"] = nil
	o["path"] = "/" + name
	o["status"] = "active"
	o["revisionId"] = 1
	o["priority"] = "normal"
	o["importOptions"] = map[string]any{}
	o["exportOptions"] = map[string]any{}
	o["excludedTargetLanguages"] = []string{}
	o["parserVersion"] = 1
	o["fields"] = map[string]any{}
	return o
}
