package server_test

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// TestOrderByAcrossEngines: orderBy gives the same order on every engine,
// the one docs/serve.md promises: nulls first ascending and last
// descending, strings by code point, ties by id.
func TestOrderByAcrossEngines(t *testing.T) {
	p := demo(t)
	nullsFirst := func(a, b *int64) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		case b == nil:
			return 1
		}
		return cmp.Compare(*a, *b)
	}
	cases := []struct {
		orderBy string
		less    func(a, b *schema.SourceString) int
	}{
		{"maxLength,identifier desc", func(a, b *schema.SourceString) int {
			return cmp.Or(nullsFirst(a.MaxLength, b.MaxLength), -strings.Compare(a.Identifier, b.Identifier))
		}},
		{"maxLength desc", func(a, b *schema.SourceString) int { return -nullsFirst(a.MaxLength, b.MaxLength) }},
		{"text", func(a, b *schema.SourceString) int { return strings.Compare(a.Text, b.Text) }},
		{"isHidden desc, createdAt", func(a, b *schema.SourceString) int {
			return cmp.Or(-cmp.Compare(b2i(a.IsHidden), b2i(b.IsHidden)), cmp.Compare(a.Added, b.Added))
		}},
	}
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			hs := serve(t, eng, server.Config{}, p)
			for _, c := range cases {
				want := make([]*schema.SourceString, len(p.Strings))
				for i := range p.Strings {
					want[i] = &p.Strings[i]
				}
				slices.SortStableFunc(want, func(a, b *schema.SourceString) int { return cmp.Or(c.less(a, b), cmp.Compare(a.ID, b.ID)) })
				var wantIDs, got []int64
				for _, s := range want {
					wantIDs = append(wantIDs, s.ID)
				}
				for off := 0; off < len(want); off += 7 {
					status, body := get(t, hs, "/api/v2/projects/1/strings", url.Values{"orderBy": {c.orderBy}, "limit": {"7"}, "offset": {itoa(off)}})
					require.Equal(t, http.StatusOK, status, "%v", body)
					for _, d := range body["data"].([]any) {
						got = append(got, int64(d.(map[string]any)["data"].(map[string]any)["id"].(float64)))
					}
				}
				require.Equal(t, wantIDs, got, c.orderBy)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
