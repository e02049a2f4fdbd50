package server_test

import (
	"net/http"
	"net/url"
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

func ts(t schema.Time) string { return time.Unix(int64(t), 0).UTC().Format(server.TimeLayout) }

func optInt(p *int64) any {
	if p == nil {
		return nil
	}
	return float64(*p)
}

func optStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
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
				require.Equal(t, map[string]any{
					"id": float64(s.ID), "projectId": float64(1), "fileId": optInt(fileID), "branchId": optInt(branchID),
					"identifier": s.Identifier, "text": s.Text, "type": s.Type, "context": s.Context, "maxLength": maxLen,
					"isHidden": s.IsHidden, "isDuplicate": s.IsDuplicate, "hasPlurals": s.Type == "plural", "isIcu": s.Type == "icu",
					"createdAt": ts(s.Added), "updatedAt": updated,
				}, o, "string %d", s.ID)
			}

			logins := p.UserLogins()
			for _, lang := range p.TargetLanguages {
				trs := allObjects(t, g, "/api/v2/projects/1/languages/"+lang+"/translations")
				var want []schema.Translation
				for _, tr := range p.Translations() {
					if tr.Language == lang {
						want = append(want, tr)
					}
				}
				require.Len(t, trs, len(want), lang)
				byID := map[int64]schema.Translation{}
				for _, tr := range want {
					byID[tr.ID] = tr
				}
				for _, o := range trs {
					tr, ok := byID[int64(o["translationId"].(float64))]
					require.True(t, ok)
					require.Equal(t, map[string]any{
						"translationId": float64(tr.ID), "stringId": float64(tr.StringID), "languageId": lang,
						"contentType": "text/plain", "text": tr.Text, "pluralCategoryName": tr.PluralForm,
						"provider": optStr(tr.Provider), "isPreTranslated": tr.IsPreTranslated,
						"user":      map[string]any{"id": float64(tr.User), "username": logins[tr.User]},
						"updatedAt": ts(tr.Updated),
					}, o, "translation %d", tr.ID)
				}
			}

			segs := allObjects(t, g, "/api/v2/tms/1/segments")
			require.Len(t, segs, len(p.TMSegments))
			for i, s := range p.TMSegments {
				o := segs[i]
				require.Equal(t, float64(s.ID), o["id"])
				recs := o["records"].([]any)
				require.Len(t, recs, len(s.Records))
				for j, r := range s.Records {
					require.Equal(t, map[string]any{"id": float64(r.ID), "text": r.Text, "usageCount": float64(r.UsageCount),
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
					"text": x.Text, "description": x.Description, "partOfSpeech": optStr(x.PartOfSpeech), "status": optStr(x.Status),
					"type": optStr(x.Type), "gender": optStr(x.Gender), "note": x.Note, "url": x.URL, "conceptId": float64(x.ConceptID),
					"lemma": x.Lemma, "createdAt": ts(x.CreatedAt), "updatedAt": updated,
				}, terms[i], "term %d", x.ID)
			}
		})
	}
}
