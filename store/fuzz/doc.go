// Package fuzz holds the property-based and fuzz tests that run across the
// whole CroQL pipeline: parser, type checker, evaluator, reference
// interpreter and SQL compiler.
//
// The package itself exports the generators the tests share:
//
//   - [Generator] makes random well-typed queries for one context. It is
//     type-directed over the schema catalog: gen(type, scope stack, depth)
//     picks among the constructs that yield the type, so every generated
//     query checks without errors. Trees are [ast] nodes printed with the
//     canonical printer; the shrinker replaces subtrees by smaller ones of
//     the same type and keeps only candidates that still check clean.
//   - [GenProject] makes small random projects (a few strings, TM
//     segments, glossary terms and concepts) with absent values, empty and
//     large collections, Unicode text and boundary datetimes, drawn from
//     the same pools of values the queries use so that comparisons hit. Its
//     shrinker removes collection elements one at a time.
//
// The properties (props_test.go, props_eval_test.go) run each with a fixed
// seed, then with a random one; a failure prints the seed and the shrunk
// counterexample. CROQL_PROP_SEED runs one given seed only, and
// CROQL_PROP_CASES sets the number of cases. The engine properties run on
// PostgreSQL and MariaDB too when CROQL_POSTGRES_DSN and CROQL_MYSQL_DSN are
// set. The native fuzz targets FuzzParse, FuzzCheck, FuzzEval and FuzzSQL
// (parse_test.go, fuzz_test.go, fuzz_eval_test.go) are seeded from the
// conformance corpus in testdata/corpus.
package fuzz
