package evaltest

import (
	"slices"

	"github.com/croql/croql/schema"
)

// TopTranslations is what croql serve's translations list answers for
// the matching translations ids of language lang in p: per string (per
// plural form of a plural string), an approved translation before others,
// then the most recently updated, then the highest id (docs/serve.md,
// "Which translation per string"). The ids are sorted.
func TopTranslations(p *schema.Project, lang string, ids []int64) []int64 {
	match := map[int64]bool{}
	for _, id := range ids {
		match[id] = true
	}
	plural := map[int64]bool{}
	for _, s := range p.Strings {
		plural[s.ID] = s.Type == "plural"
	}
	type key struct {
		str  int64
		form string
	}
	top := map[key]schema.Translation{}
	for _, tr := range p.Translations() {
		if tr.Language != lang || !match[tr.ID] {
			continue
		}
		k := key{tr.StringID, ""}
		if plural[tr.StringID] {
			k.form = tr.PluralForm
		}
		cur, ok := top[k]
		if !ok || better(tr, cur) {
			top[k] = tr
		}
	}
	out := []int64{}
	for _, tr := range top {
		out = append(out, tr.ID)
	}
	slices.Sort(out)
	return out
}

func better(a, b schema.Translation) bool {
	if x, y := len(a.Approvals) > 0, len(b.Approvals) > 0; x != y {
		return x
	}
	if a.Updated != b.Updated {
		return a.Updated > b.Updated
	}
	return a.ID > b.ID
}
