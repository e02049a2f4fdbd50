package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql"
	"github.com/croql/croql/server"
)

// TestLanguageProgress: the progress of each language counts the strings
// the evaluator finds translated and approved in its languages summary.
func TestLanguageProgress(t *testing.T) {
	p := demo(t)
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			status, body := get(t, hs, "/api/v2/projects/1/languages/progress", nil)
			require.Equal(t, http.StatusOK, status, "%v", body)
			data := body["data"].([]any)
			require.Len(t, data, len(p.TargetLanguages))
			words := map[int64]int{}
			total := 0
			for _, s := range p.Strings {
				words[s.ID] = len(strings.Fields(s.Text))
				total += words[s.ID]
			}
			for i, lang := range p.TargetLanguages {
				o := data[i].(map[string]any)["data"].(map[string]any)
				require.Equal(t, lang, o["languageId"])
				require.Equal(t, lang, o["language"].(map[string]any)["id"])
				tr := evalIDs(t, p, croql.Strings, "", `count of languages summary where (language = @language:"`+lang+`" and is translated) > 0`)
				ap := evalIDs(t, p, croql.Strings, "", `count of languages summary where (language = @language:"`+lang+`" and is approved) > 0`)
				ph := o["phrases"].(map[string]any)
				require.Equal(t, float64(len(p.Strings)), ph["total"])
				require.Equal(t, float64(len(tr)), ph["translated"], lang)
				require.Equal(t, float64(len(ap)), ph["approved"], lang)
				trWords := 0
				for _, id := range tr {
					trWords += words[id]
				}
				require.Equal(t, float64(total), o["words"].(map[string]any)["total"])
				require.Equal(t, float64(trWords), o["words"].(map[string]any)["translated"])
				require.Equal(t, float64(trWords*100/total), o["translationProgress"])
			}
			// Per file for one language, per language for one file: the
			// strings of the file the evaluator finds translated.
			status, body = get(t, hs, "/api/v2/projects/1/languages/de/progress", nil)
			require.Equal(t, http.StatusOK, status, "%v", body)
			files := body["data"].([]any)
			require.Len(t, files, len(p.Files))
			for i, f := range p.Files {
				o := files[i].(map[string]any)["data"].(map[string]any)
				require.Equal(t, float64(f.ID), o["fileId"])
				in := evalIDs(t, p, croql.Strings, "", fmt.Sprintf("id of file = %d", f.ID))
				tr := evalIDs(t, p, croql.Strings, "", fmt.Sprintf(`id of file = %d and count of languages summary where (language = @language:"de" and is translated) > 0`, f.ID))
				ph := o["phrases"].(map[string]any)
				require.Equal(t, float64(len(in)), ph["total"], "file %d", f.ID)
				require.Equal(t, float64(len(tr)), ph["translated"], "file %d", f.ID)
				status, body := get(t, hs, fmt.Sprintf("/api/v2/projects/1/files/%d/languages/progress", f.ID), nil)
				require.Equal(t, http.StatusOK, status)
				byLang := body["data"].([]any)
				require.Len(t, byLang, len(p.TargetLanguages))
				for _, x := range byLang {
					x := x.(map[string]any)["data"].(map[string]any)
					if x["languageId"] == "de" {
						require.Equal(t, ph, x["phrases"])
					}
				}
			}
			status, _ = get(t, hs, "/api/v2/projects/1/languages/xx/progress", nil)
			require.Equal(t, http.StatusNotFound, status)
			status, _ = get(t, hs, "/api/v2/projects/1/files/999/languages/progress", nil)
			require.Equal(t, http.StatusNotFound, status)

			status, body = get(t, hs, "/api/v2/projects/1/languages/progress", url.Values{"languageIds": {"de"}})
			require.Equal(t, http.StatusOK, status)
			require.Len(t, body["data"], 1)
			status, _ = get(t, hs, "/api/v2/projects/1/languages/progress", url.Values{"languageIds": {"xx"}})
			require.Equal(t, http.StatusBadRequest, status)
		})
	}
}
