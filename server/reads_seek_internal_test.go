package server

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeekIndexAt: an offset names the key whose rows it falls in and how
// many of them come before it; past the end, a key past every key.
func TestSeekIndexAt(t *testing.T) {
	// Keys 3 (2 rows), 7 (1 row), 9 (4 rows): rows 0-1, 2, 3-6.
	ix := &seekIndex{keys: []int64{3, 7, 9}, before: []int64{0, 2, 3}, total: 7}
	for _, c := range []struct{ offset, key, skip int64 }{
		{0, 3, 0}, {1, 3, 1}, {2, 7, 0}, {3, 9, 0}, {6, 9, 3}, {7, 10, 0}, {100, 10, 0},
	} {
		key, skip := ix.at(c.offset)
		require.Equal(t, [2]int64{c.key, c.skip}, [2]int64{key, skip}, "offset %d", c.offset)
	}
	key, skip := (&seekIndex{}).at(5)
	require.Equal(t, [2]int64{0, 0}, [2]int64{key, skip})
}
