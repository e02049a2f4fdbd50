package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
)

// newFieldsCmd returns `croql fields [--context C] [--edition E] [--format
// text|json]`: the fields a query in a context can use, with their types,
// whether they may be absent, their known values and what they mean; the
// fields of objects and collections indented under them.
func newFieldsCmd(c *cli) *cobra.Command {
	var ctxName, edition, format string
	cmd := &cobra.Command{
		Use:   "fields [--context C] [--edition E] [--format text|json]",
		Short: "List the fields of a context, with types and meanings",
		Long: "Lists the fields a query in the context can use: the documented spelling, the type, whether\n" +
			"the value may be absent, the known values of an enumerated field, the edition and what it means.\n" +
			"The fields of an object or collection are indented under it (use them with `of`, `where`, `with`).\n" +
			"With --edition standard (the default) enterprise-only fields are marked; they are errors there.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ed, err := parseEdition(edition)
			if err != nil {
				return err
			}
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			env, err := croql.NewEnv(ctxName, croql.WithEdition(ed))
			if err != nil {
				return usageErrorf("%w", err)
			}
			ctx := env.Context()
			list := describeFields(ctx.Root, nil)
			if format == "json" {
				return writeJSON(c, list)
			}
			fmt.Fprintf(c.stdout, "Fields of %s (croql query --context %s):\n\n", ctx.Title, ctx.Name)
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			writeFields(tw, list, ed, 0)
			if err := tw.Flush(); err != nil {
				return failure(fmt.Errorf("writing: %w", err))
			}
			return nil
		},
	}
	addContextFlag(cmd, &ctxName)
	addEditionFlag(cmd, &edition)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, or json (an array of fields, nested)")
	completeFlag(cmd, "format", "text", "json")
	return cmd
}

// fieldInfo describes one field, as `croql fields --format json` prints
// it.
type fieldInfo struct {
	Name     string      `json:"name"`
	Type     string      `json:"type"`
	Nullable bool        `json:"nullable"`
	Enum     []string    `json:"enum,omitempty"`
	Edition  string      `json:"edition"`
	Doc      string      `json:"doc"`
	Fields   []fieldInfo `json:"fields,omitempty"`
}

// describeFields describes the fields of obj, and of the objects under
// them; path holds the objects already being described (a cycle stops
// there).
func describeFields(obj *schema.Object, path []*schema.Object) []fieldInfo {
	if obj == nil || slices.Contains(path, obj) {
		return nil
	}
	path = append(path, obj)
	out := make([]fieldInfo, 0, len(obj.Fields))
	for _, f := range obj.Fields {
		fi := fieldInfo{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable, Enum: f.Enum, Edition: f.Edition.String(), Doc: f.Doc}
		if k := f.Type.Kind; k == schema.Record || k == schema.Collection {
			fi.Fields = describeFields(f.Type.Obj, path)
		}
		out = append(out, fi)
	}
	return out
}

func writeFields(w io.Writer, list []fieldInfo, ed schema.Edition, depth int) {
	indent := strings.Repeat("  ", depth)
	for _, f := range list {
		typ := f.Type
		if f.Nullable {
			typ += ", may be absent"
		}
		doc := f.Doc
		if len(f.Enum) > 0 {
			doc += " Known values: " + strings.Join(f.Enum, ", ") + "."
		}
		if f.Edition == schema.Enterprise.String() && ed != schema.Enterprise {
			doc = "[enterprise only] " + doc
		}
		fmt.Fprintf(w, "%s%s\t%s\t%s\n", indent, f.Name, typ, doc)
		writeFields(w, f.Fields, ed, depth+1)
	}
}
