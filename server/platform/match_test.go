package platform

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/croql/croql/app/postimport"
	"github.com/croql/croql/schema"
)

// TestMatchStrings: uniqId (with the same identifier) first, then the
// first stored string left with the identifier; each stored string once.
func TestMatchStrings(t *testing.T) {
	stored := []storedString{
		{SourceString: schema.SourceString{ID: 1, Identifier: "a"}, uniqID: uniqID("f.json", "a", 1)},
		{SourceString: schema.SourceString{ID: 2, Identifier: "a"}, uniqID: uniqID("f.json", "a", 2)},
		{SourceString: schema.SourceString{ID: 3, Identifier: "b"}, uniqID: uniqID("f.json", "b", 3)},
	}
	strs := []postimport.String{
		{Identifier: "x", UniqID: uniqID("f.json", "b", 3)}, // uniqId of b, another identifier: new
		{Identifier: "a", UniqID: "app::1"},                 // the first a left
		{Identifier: "a", UniqID: uniqID("f.json", "a", 1)}, // a by its uniqId
		{Identifier: "a", UniqID: "app::2"},                 // no a left: new
		{Identifier: "b", UniqID: "app::3"},
	}
	require.Equal(t, []int{-1, 1, 0, -1, 2}, matchStrings(stored, stringSlice(strs)))
	require.Equal(t, []int{-1}, matchStrings(nil, stringSlice(strs[:1])))
}
