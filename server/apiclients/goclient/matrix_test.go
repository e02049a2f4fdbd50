package goclient_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/crowdin/crowdin-api-client-go/crowdin/model"
	"github.com/stretchr/testify/require"
)

// The Go half of the client × operation matrix of docs/serve.md: each
// test records the outcome of every call it makes (by the JS suite's
// name of the operation, so the two halves line up), and the outcomes of
// each engine must equal testdata/matrix-go.json, which
// CROQL_UPDATE_MATRIX=1 rewrites. TestClientMatrixDoc (package server)
// renders the table from it and the JS half.

const matrixFile = "testdata/matrix-go.json"

// matrixMu serialises the rewrites of matrixFile by the tests.
var matrixMu sync.Mutex

// outcomes are the outcomes of one test's calls on one engine.
type outcomes map[string]string

// rec records the outcome of operation name: works, the status and
// validation key of a refusal, or that the client could not decode the
// answer.
func (o outcomes) rec(name string, err error) {
	var ve *model.ValidationErrorResponse
	var er *model.ErrorResponse
	var ute *json.UnmarshalTypeError
	switch {
	case err == nil:
		o[name] = "works"
	case errors.As(err, &ve) && len(ve.Errors) > 0:
		o[name] = fmt.Sprintf("%d `%s`", ve.Response.StatusCode, ve.Errors[0].ErrorDetail.Key)
	case errors.As(err, &er):
		o[name] = fmt.Sprintf("%d", er.Response.StatusCode)
	case errors.As(err, &ute):
		o[name] = "fails to decode (`" + ute.Field + "`)"
	default:
		o[name] = "fails: " + err.Error()
	}
}

// check compares o with matrixFile's entries of the same names (or
// writes them there with CROQL_UPDATE_MATRIX=1).
func (o outcomes) check(t *testing.T) {
	t.Helper()
	matrixMu.Lock()
	defer matrixMu.Unlock()
	all := map[string]string{}
	if b, err := os.ReadFile(matrixFile); err == nil {
		require.NoError(t, json.Unmarshal(b, &all))
	}
	if os.Getenv("CROQL_UPDATE_MATRIX") == "1" {
		maps.Copy(all, o)
		b, err := json.MarshalIndent(all, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(matrixFile), 0o755))
		require.NoError(t, os.WriteFile(matrixFile, append(b, '\n'), 0o644))
		return
	}
	want := map[string]string{}
	for k := range o {
		if v, ok := all[k]; ok {
			want[k] = v
		}
	}
	require.Equal(t, want, map[string]string(o), "the Go client's outcomes differ from %s (CROQL_UPDATE_MATRIX=1 rewrites it)", matrixFile)
}
