package bench

import (
	"fmt"

	"github.com/croql/croql"
	"github.com/croql/croql/schema"
)

// croqlBuilder compiles patterns once with the croql facade (Env.Compile),
// mentions resolved against p's users and languages, and evaluates with
// the facade's typed path, croql.For(q).Match.
func croqlBuilder(p *schema.Project) func(Pattern) (Matcher, error) {
	langs := make([]string, 0, len(p.Languages))
	for _, l := range p.Languages {
		langs = append(langs, l.ID)
	}
	return func(pt Pattern) (Matcher, error) {
		env, err := croql.NewEnv(croql.Strings, croql.WithUserIDs(p.UserIDs()), croql.WithLanguages(langs...))
		if err != nil {
			return nil, err
		}
		q, diags := env.Compile(pt.CroQL)
		if diags.HasErrors() {
			return nil, fmt.Errorf("croql %s: %v", pt.Name, diags)
		}
		m, err := croql.For[schema.SourceString](q)
		if err != nil {
			return nil, err
		}
		return m.Match, nil
	}
}
