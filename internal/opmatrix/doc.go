// Package opmatrix holds the operator matrix that runs without a
// database: every operator of ast.Syntax, applied to operands of every
// type the checker accepts for it (absent ones included), evaluated by
// package eval against the reference interpreter (internal/refeval) on
// fixture and generated data, and compiled to the SQL of each dialect,
// compared with the golden files under testdata/opmatrix. It lists no
// operator: a new row of ast.Syntax is in the matrix as soon as it exists,
// and fails it until every layer has the operator. The operands, the
// queries, the reference's answers and the failures' report are exported
// for store/conformance, which runs the same matrix on the SQL engines.
package opmatrix
