package client_test

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/client"
	"github.com/croql/croql/schema"
	"github.com/croql/croql/server"
)

// TestAllFollowsThePageBudget: against croql serve with a small page
// byte budget (--max-page-bytes) and large texts, All asks again with the
// limit each pageTooLarge answer advises and gets every string, in id
// order, with its text; a string alone over the budget is the server's
// error.
func TestAllFollowsThePageBudget(t *testing.T) {
	p, err := readDemo()
	require.NoError(t, err)
	slices.SortFunc(p.Strings, func(a, b schema.SourceString) int { return cmp.Compare(a.ID, b.ID) })
	const text, budget = 20 << 10, 150 << 10 // about seven texts a page
	for i := range p.Strings {
		p.Strings[i].Text = strings.Repeat(string(rune('a'+i%26)), text)
	}
	huge, hugeKey := p.Strings[len(p.Strings)/2].ID, p.Strings[len(p.Strings)/2].Identifier
	p.Strings[len(p.Strings)/2].Text = strings.Repeat("z", budget+1)
	hs := serveProject(t, server.Config{MaxPageBytes: budget}, p)
	c, rec := newClient(t, hs)

	// The server refuses the client's usual page.
	_, err = c.List(context.Background(), client.StringsOf(1), "", client.ListOptions{Limit: client.MaxLimit})
	fit, ok := client.PageFit(err)
	require.True(t, ok, "%v", err)
	require.Less(t, fit, int64(8))
	require.Greater(t, fit, int64(0))
	// The server sends the fit as a field, and says it in the message.
	var fitErr *client.APIError
	require.ErrorAs(t, err, &fitErr)
	require.Equal(t, fit, fitErr.Fit)
	require.Contains(t, fitErr.Message, "ask for limit="+strconv.FormatInt(fit, 10)+" or less")
	// A server without the field: PageFit reads the message.
	old := *fitErr
	old.Fit = 0
	oldFit, ok := client.PageFit(&old)
	require.True(t, ok)
	require.Equal(t, fit, oldFit)

	// All, without the string over the budget.
	rec.urls = nil
	src := "identifier != " + strconv.Quote(hugeKey)
	strs, err := c.Strings(context.Background(), 1, src)
	require.NoError(t, err)
	var want []int64
	for _, s := range p.Strings {
		if s.ID != huge {
			want = append(want, s.ID)
		}
	}
	var got []int64
	for _, s := range strs {
		got = append(got, s.ID)
		b, err := json.Marshal(s.Text) // a plural string's text is its forms
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(b), text, "string %d", s.ID)
	}
	require.Equal(t, want, got)
	// Pages of a few strings each, every one within the limit asked.
	pages := 0
	for _, u := range rec.urls {
		q, err := url.Parse(u)
		require.NoError(t, err)
		limit, err := strconv.Atoi(q.Query().Get("limit"))
		require.NoError(t, err)
		if limit < client.MaxLimit {
			pages++
			require.LessOrEqual(t, limit, 7, u)
		}
	}
	require.GreaterOrEqual(t, pages, len(want)/7, "the pages were fetched with the advised limits")

	// The raw lists answer the same, also through All.
	raw, err := c.All(context.Background(), client.StringsOf(1), src)
	require.NoError(t, err)
	require.Len(t, raw, len(want))
	var first struct{ ID int64 }
	require.NoError(t, json.Unmarshal(raw[0], &first))
	require.Equal(t, want[0], first.ID)

	// One string alone over the budget: the server's message.
	_, err = c.Strings(context.Background(), 1, "")
	var ae *client.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusBadRequest, ae.Status)
	require.Equal(t, "pageTooLarge", ae.Code)
	require.Contains(t, ae.Message, "alone is larger than the server's page budget of "+strconv.Itoa(budget)+" bytes (--max-page-bytes)")
	_, ok = client.PageFit(err)
	require.False(t, ok)
}
