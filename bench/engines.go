package bench

import (
	"errors"
	"fmt"
	"reflect"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/croql/croql/demo"
	"github.com/croql/croql/schema"
)

// Matcher evaluates one compiled pattern on one source string. A Matcher
// of expr or cel-go reuses its evaluation state and must not be called
// from several goroutines at once.
type Matcher func(*schema.SourceString) (bool, error)

// Engine compiles patterns for one engine.
type Engine struct {
	Name string
	// Build compiles the pattern once.
	Build func(Pattern) (Matcher, error)
}

// The engine names, as the benchmarks and the table name them.
const (
	CroQL = "croql"
	Expr  = "expr"
	CEL   = "cel"
	Hand  = "hand"
)

// Data returns the source strings the engines are compared on: a generated
// demo project of n strings (seed 1), with its user directory and
// languages, which the croql queries resolve mentions against.
func Data(n int) *schema.Project { return demo.Generate(demo.Options{Strings: n, Seed: 1}) }

// Engines returns the four engines; croql resolves @user and @language
// mentions against p's users and languages.
func Engines(p *schema.Project) ([]Engine, error) {
	celEnv, err := cel.NewEnv(
		ext.NativeTypes(reflect.TypeFor[schema.SourceString]()),
		cel.Variable("s", cel.ObjectType("schema.SourceString")),
	)
	if err != nil {
		return nil, fmt.Errorf("cel environment: %w", err)
	}
	return []Engine{
		{Name: CroQL, Build: croqlBuilder(p)},
		{Name: Expr, Build: buildExpr},
		{Name: CEL, Build: func(pt Pattern) (Matcher, error) { return buildCEL(celEnv, pt) }},
		{Name: Hand, Build: func(pt Pattern) (Matcher, error) {
			h := pt.Hand
			return func(s *schema.SourceString) (bool, error) { return h(s), nil }, nil
		}},
	}, nil
}

// buildExpr compiles with the struct as the environment (typed field
// access, the optimiser on by default) and runs on one reused VM, the way
// expr's documentation recommends for hot loops.
func buildExpr(pt Pattern) (Matcher, error) {
	prog, err := expr.Compile(pt.Expr, expr.Env(schema.SourceString{}), expr.AsBool())
	if err != nil {
		return nil, fmt.Errorf("expr %s: %w", pt.Name, err)
	}
	var machine vm.VM
	return func(s *schema.SourceString) (bool, error) {
		out, err := machine.Run(prog, s)
		if err != nil {
			return false, err
		}
		return out.(bool), nil
	}, nil
}

// activation binds the variable s to the current string without a map.
type activation struct{ s *schema.SourceString }

func (a *activation) ResolveName(name string) (any, bool) {
	if name == "s" {
		return a.s, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// buildCEL compiles against native Go types (no protobuf messages) with
// the optimiser on, and evaluates with one reused activation.
func buildCEL(env *cel.Env, pt Pattern) (Matcher, error) {
	ast, iss := env.Compile(pt.CEL)
	if iss.Err() != nil {
		return nil, fmt.Errorf("cel %s: %w", pt.Name, iss.Err())
	}
	if ast.OutputType() != cel.BoolType {
		return nil, fmt.Errorf("cel %s: expression is %v, want bool", pt.Name, ast.OutputType())
	}
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, fmt.Errorf("cel %s: %w", pt.Name, err)
	}
	act := &activation{}
	return func(s *schema.SourceString) (bool, error) {
		act.s = s
		out, _, err := prg.Eval(act)
		if err != nil {
			return false, err
		}
		switch out {
		case types.True:
			return true, nil
		case types.False:
			return false, nil
		}
		return false, errors.New("cel: result is not a bool")
	}, nil
}
