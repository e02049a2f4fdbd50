package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// allObjects fetches every object of a list (blank croql), 500 per page.
func allObjects(t *testing.T, get func(string, url.Values) (int, map[string]any), path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for off := 0; ; off += 500 {
		status, body := get(path, url.Values{"limit": {"500"}, "offset": {itoa(off)}})
		require.Equal(t, http.StatusOK, status, "%v", body)
		data := body["data"].([]any)
		for _, d := range data {
			out = append(out, d.(map[string]any)["data"].(map[string]any))
		}
		if len(data) < 500 {
			return out
		}
	}
}

// apiWord is the API's spelling of a term's partOfSpeech, status, type
// or gender (the clients' declared values).
func apiWord(p *string) any {
	if p == nil {
		return nil
	}
	w := map[string]string{"adj": "adjective", "adp": "adposition", "adv": "adverb", "aux": "auxiliary",
		"cconj": "coordinating conjunction", "det": "determiner", "intj": "interjection", "num": "numeral",
		"prt": "particle", "pron": "pronoun", "propn": "proper noun", "sconj": "subordinating conjunction",
		"sym": "other", "x": "other", "not_recommended": "not recommended", "full_form": "full form",
		"short_form": "short form"}[*p]
	if w == "" {
		return *p
	}
	return w
}

func ts(t schema.Time) string { return time.Unix(int64(t), 0).UTC().Format(server.TimeLayout) }

func optInt(p *int64) any {
	if p == nil {
		return nil
	}
	return float64(*p)
}

// TestObjectsRendered: every field of every object equals the data, on
// every engine (booleans, nulls, datetimes, the translation's string).
func TestObjectsRendered(t *testing.T) {
	p := demo(t)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			g := func(path string, q url.Values) (int, map[string]any) { return get(t, hs, path, q) }

			strs := allObjects(t, g, "/api/v2/projects/1/strings")
			require.Len(t, strs, len(p.Strings))
			for i, s := range p.Strings {
				o := strs[i]
				var fileID, branchID *int64
				if s.File != nil {
					fileID = &s.File.ID
				}
				if s.Branch != nil {
					branchID = &s.Branch.ID
				}
				maxLen := float64(0)
				if s.MaxLength != nil {
					maxLen = float64(*s.MaxLength)
				}
				var updated any
				if s.Updated != nil {
					updated = ts(*s.Updated)
				}
				// The API's spellings: type text (plain and plural), icu or
				// asset; a plural's text an object of its forms.
				typ, text := s.Type, any(s.Text)
				if typ == "plain" || typ == "plural" {
					typ = "text"
				}
				if s.Type == "plural" {
					text = map[string]any{"other": s.Text}
				}
				labels := []any{}
				for _, l := range s.Labels {
					labels = append(labels, float64(l.ID))
				}
				slices.SortFunc(labels, func(a, b any) int { return int(a.(float64) - b.(float64)) })
				require.Equal(t, map[string]any{
					"id": float64(s.ID), "projectId": float64(1), "fileId": optInt(fileID), "branchId": optInt(branchID),
					"identifier": s.Identifier, "text": text, "type": typ, "context": s.Context, "maxLength": maxLen,
					"isHidden": s.IsHidden, "isDuplicate": s.IsDuplicate, "hasPlurals": s.Type == "plural", "isIcu": s.Type == "icu",
					"createdAt": ts(s.Added), "updatedAt": updated, "labelIds": labels, "masterStringId": nil,
					"directoryId": nil, "revision": nil, "webUrl": "", "fields": map[string]any{},
				}, o, "string %d", s.ID)
			}

			logins := p.UserLogins()
			plural := map[int64]bool{}
			for _, s := range p.Strings {
				plural[s.ID] = s.Type == "plural"
			}
			user := func(id int64) map[string]any {
				return map[string]any{"id": float64(id), "username": logins[id], "fullName": logins[id], "avatarUrl": ""}
			}
			for _, lang := range p.TargetLanguages {
				trs := allObjects(t, g, "/api/v2/projects/1/languages/"+lang+"/translations")
				byID := map[int64]schema.Translation{}
				for _, tr := range p.Translations() {
					if tr.Language == lang {
						byID[tr.ID] = tr
					}
				}
				var all []int64
				for id := range byID {
					all = append(all, id)
				}
				slices.Sort(all)
				want := topTranslations(p, lang, all)
				var got []int64
				for _, o := range trs {
					sid := int64(o["stringId"].(float64))
					if plural[sid] {
						pl := o["plurals"].([]any)
						require.Equal(t, map[string]any{"stringId": float64(sid), "contentType": "text/plain", "plurals": pl}, o)
						for _, x := range pl {
							tr := byID[int64(x.(map[string]any)["translationId"].(float64))]
							require.Equal(t, map[string]any{"translationId": float64(tr.ID), "text": tr.Text, "pluralForm": tr.PluralForm,
								"user": user(tr.User), "createdAt": ts(tr.Added)}, x)
							require.Equal(t, sid, tr.StringID)
							got = append(got, tr.ID)
						}
						continue
					}
					tr, ok := byID[int64(o["translationId"].(float64))]
					require.True(t, ok)
					require.Equal(t, map[string]any{
						"translationId": float64(tr.ID), "stringId": float64(tr.StringID), "contentType": "text/plain",
						"text": tr.Text, "user": user(tr.User), "createdAt": ts(tr.Added),
					}, o, "translation %d", tr.ID)
					got = append(got, tr.ID)
				}
				slices.Sort(got)
				require.Equal(t, want, got, lang)
			}

			segs := allObjects(t, g, "/api/v2/tms/1/segments")
			require.Len(t, segs, len(p.TMSegments))
			for i, s := range p.TMSegments {
				o := segs[i]
				require.Equal(t, float64(s.ID), o["id"])
				recs := o["records"].([]any)
				require.Len(t, recs, len(s.Records))
				for j, r := range s.Records {
					require.Equal(t, map[string]any{"id": float64(r.ID), "languageId": r.Language, "text": r.Text, "usageCount": float64(r.UsageCount),
						"createdBy": float64(r.CreatedBy), "updatedBy": float64(r.UpdatedBy),
						"createdAt": ts(r.CreatedAt), "updatedAt": ts(r.UpdatedAt)}, recs[j], "segment %d record %d", s.ID, r.ID)
				}
			}

			terms := allObjects(t, g, "/api/v2/glossaries/1/terms")
			require.Len(t, terms, len(p.GlossaryTerms))
			for i, x := range p.GlossaryTerms {
				var updated any
				if x.UpdatedAt != nil {
					updated = ts(*x.UpdatedAt)
				}
				require.Equal(t, map[string]any{
					"id": float64(x.ID), "userId": float64(x.User), "glossaryId": float64(1), "languageId": x.Language,
					"text": x.Text, "description": x.Description, "partOfSpeech": apiWord(x.PartOfSpeech), "status": apiWord(x.Status),
					"type": apiWord(x.Type), "gender": apiWord(x.Gender), "note": x.Note, "url": x.URL, "conceptId": float64(x.ConceptID),
					"lemma": x.Lemma, "createdAt": ts(x.CreatedAt), "updatedAt": updated,
				}, terms[i], "term %d", x.ID)
			}
		})
	}
}
