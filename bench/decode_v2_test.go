//go:build goexperiment.jsonv2

package bench

import (
	jsonv2 "encoding/json/v2"

	"github.com/croql/croql/schema"
)

// With GOEXPERIMENT=jsonv2 the comparison includes encoding/json/v2.
func init() {
	decoders = append(decoders, struct {
		name   string
		decode func([]byte, *schema.SourceString) error
	}{"encoding_json_v2", func(b []byte, s *schema.SourceString) error { return jsonv2.Unmarshal(b, s) }})
}
