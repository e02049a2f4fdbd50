package ast

import "testing"

func TestSExprFormat(t *testing.T) {
	id := func(n string) *Ident { return &Ident{Name: n} }
	for want, e := range map[string]Expr{
		`count`:                id("count"),
		`|languages summary|`:  id("languages summary"),
		`7`:                    &Int{Value: 7},
		`10.0`:                 &Float{Value: 10},
		`"a\"b\n"`:             &String{Value: "a\"b\n"},
		`'2024-01-01'`:         &Datetime{Text: "2024-01-01"},
		`@user:"alice"`:        &Mention{Kind: "user", Value: "alice"},
		`(neg x)`:              &Unary{Op: OpNeg, X: id("x")},
		`(not |is hidden|)`:    &Unary{Op: OpNot, X: id("is hidden")},
		`(!= a 1)`:             &Binary{Op: OpNe, X: id("a"), Y: &Int{Value: 1}},
		`(contains text "x")`:  &Binary{Op: OpContains, X: id("text"), Y: &String{Value: "x"}},
		`(between a 1 2)`:      &Between{X: id("a"), Lo: &Int{Value: 1}, Hi: &Int{Value: 2}},
		`(of id file)`:         &Member{Name: id("id"), X: id("file")},
		`(with file (= id 7))`: &Filter{Kind: With, X: id("file"), Pred: &Binary{Op: OpEq, X: id("id"), Y: &Int{Value: 7}}},
		`(if a b c)`:           &If{Cond: id("a"), Then: id("b"), Else: id("c")},
		`(> (of count (where translations p)) 0)`: &Binary{Op: OpGt,
			X: &Member{Name: id("count"), X: &Filter{Kind: Where, X: id("translations"), Pred: id("p")}}, Y: &Int{Value: 0}},
	} {
		if got := SExpr(e); got != want {
			t.Errorf("SExpr = %s, want %s", got, want)
		}
	}
}

func TestGrouped(t *testing.T) {
	id := func(n string) *Ident { return &Ident{Name: n} }
	for want, e := range map[string]Expr{
		`(-(count of translations)) + 1`: &Binary{Op: OpAdd,
			X: &Unary{Op: OpNeg, X: &Member{Name: id("count"), X: id("translations")}}, Y: &Int{Value: 1}},
		`-(-x)`:                           &Unary{Op: OpNeg, X: &Unary{Op: OpNeg, X: id("x")}},
		`x where ((a = 1) and b)`:         &Filter{Kind: Where, X: id("x"), Pred: &Binary{Op: OpAnd, X: &Binary{Op: OpEq, X: id("a"), Y: &Int{Value: 1}}, Y: id("b")}},
		`if a then b or c else d`:         &If{Cond: id("a"), Then: &Binary{Op: OpOr, X: id("b"), Y: id("c")}, Else: id("d")},
		`(x between 1 and (2 + 3)) and y`: &Binary{Op: OpAnd, X: &Between{X: id("x"), Lo: &Int{Value: 1}, Hi: &Binary{Op: OpAdd, X: &Int{Value: 2}, Y: &Int{Value: 3}}}, Y: id("y")},
		`not (not y)`:                     &Unary{Op: OpNot, X: &Unary{Op: OpNot, X: id("y")}},
		`is hidden`:                       id("is hidden"),
	} {
		if got := Grouped(e); got != want {
			t.Errorf("Grouped = %s, want %s", got, want)
		}
	}
}

func TestEqualCountMember(t *testing.T) {
	m := func(name string) Expr { return &Member{Name: &Ident{Name: name}, X: &Ident{Name: "x"}} }
	if !Equal(m("COUNT"), m("count")) || !Equal(m("count"), m("Count")) {
		t.Error("the built-in member count compares in any case, as the printer writes it in lower case")
	}
	if Equal(m("Id"), m("id")) || Equal(m("count"), m("counts")) {
		t.Error("other member names compare exactly")
	}
	if Equal(&Ident{Name: "COUNT"}, &Ident{Name: "count"}) {
		t.Error("a bare identifier compares exactly")
	}
}

func TestOpMirror(t *testing.T) {
	for op, want := range map[Op]Op{
		OpLt: OpGt, OpLe: OpGe, OpGt: OpLt, OpGe: OpLe,
		OpEq: OpEq, OpNe: OpNe, OpContains: OpContains,
	} {
		if got := op.Mirror(); got != want {
			t.Errorf("%s.Mirror() = %s, want %s", op, got, want)
		}
		if got := op.Mirror().Mirror(); got != op {
			t.Errorf("%s mirrored twice = %s", op, got)
		}
	}
}
