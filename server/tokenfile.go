package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// ReadTokenFile reads a token file: one token per line, followed by the
// ids of the projects it may read, separated by commas or spaces, or `*`
// for every project. Blank lines and lines starting with # are skipped.
//
//	# token            projects
//	9f2c1e...          *
//	a71b03...          1,3
func ReadTokenFile(r io.Reader) (*Tokens, error) {
	t := &Tokens{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(strings.ReplaceAll(line, ",", " "))
		if len(fields) < 2 {
			return nil, fmt.Errorf("server: token file line %d: want a token and its projects (ids separated by commas, or *)", n)
		}
		var ids []int64
		all := false
		for _, f := range fields[1:] {
			if f == "*" {
				all = true
				continue
			}
			id, err := strconv.ParseInt(f, 10, 64)
			if err != nil || id <= 0 {
				return nil, fmt.Errorf("server: token file line %d: %q is not a project id (a positive integer or *)", n, f)
			}
			ids = append(ids, id)
		}
		if all {
			ids = nil
		}
		if err := t.Add(fields[0], ids...); err != nil {
			return nil, fmt.Errorf("server: token file line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("server: token file: %w", err)
	}
	if len(t.entries) == 0 {
		return nil, errors.New("server: the token file lists no token")
	}
	return t, nil
}

// Authenticate returns the grant of the request's bearer token (in the
// Authorization header) and whether t accepts it. A nil Tokens accepts
// none.
func (t *Tokens) Authenticate(r *http.Request) (Grant, bool) { return t.authenticate(r) }
