package server

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// DefaultMaxPageBytes is the byte budget of a list answer
// (Config.MaxPageBytes).
const DefaultMaxPageBytes = 32 << 20

// pageBudgetError stops reading a page's rows once their texts alone
// have passed the page's byte budget: the answer would pass it too.
type pageBudgetError struct {
	fit int // rows read before the one that passed the budget
}

func (e *pageBudgetError) Error() string {
	return fmt.Sprintf("server: the page passes its byte budget after %d objects", e.fit)
}

// pageBytes counts the bytes of a page's texts as its rows are read, as
// the answer will send them (JSON-escaped: jsonLen), against the byte
// budget max (no budget when 0 or less).
type pageBytes struct {
	max, n int64
	rows   int
}

// add counts one row's values; it fails once the rows read so far hold
// more than the budget.
func (b *pageBytes) add(vals []any) error {
	if b.max <= 0 {
		return nil
	}
	for _, v := range vals {
		switch v := v.(type) {
		case string:
			b.n += jsonLen(v)
		case []byte:
			b.n += jsonLen(string(v))
		}
	}
	if b.n > b.max {
		return &pageBudgetError{fit: b.rows}
	}
	b.rows++
	return nil
}

// pageTooLarge is the 400 of a page over the byte budget: ask for fewer
// objects (fit of them fit), or, when not even the first one fits, that
// object cannot be listed by this server.
func (s *Server) pageTooLarge(fit int) *httpError {
	budget := strconv.FormatInt(s.cfg.MaxPageBytes, 10)
	if fit == 0 {
		return invalid("limit", "pageTooLarge", "the first object of this page alone is larger than the server's page budget of "+budget+
			" bytes (--max-page-bytes); it cannot be listed by this server")
	}
	e := invalid("limit", "pageTooLarge", fmt.Sprintf("the page would be larger than the server's page budget of %s bytes (--max-page-bytes): its first %d objects fit; ask for limit=%d or less",
		budget, fit, fit))
	e.validation[0].Errors[0].Fit = fit
	return e
}

// jsonLen is the length of s as encoding/json writes it in a string,
// without the quotes: `"` and `\` and the short escapes take 2 bytes, the
// other control characters, `<`, `>`, `&` (escaped for HTML), U+2028,
// U+2029 and each byte of invalid UTF-8 (written as U+FFFD) take 6.
func jsonLen(s string) int64 {
	var n int64
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += int64(size)
		}
		i += size
	}
	return n
}
