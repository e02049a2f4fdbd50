// Package sarifcheck validates SARIF logs against the official SARIF
// 2.1.0 JSON schema (testdata/sarif/sarif-schema-2.1.0.json, copied from
// the OASIS SARIF TC's repository), for tests.
package sarifcheck

import (
	"bytes"
	"fmt"
	"os"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validate checks that log is a SARIF 2.1.0 log, format assertions (uri,
// uri-reference, date-time, ...) included. schemaPath is the path of the
// schema file.
func Validate(schemaPath string, log []byte) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return fmt.Errorf("sarifcheck: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("sarifcheck: the schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("sarifcheck: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("sarifcheck: compiling the schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("sarifcheck: the log is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("sarifcheck: %w", err)
	}
	return nil
}
