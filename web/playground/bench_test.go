package playground

import "testing"

// benchQuery is the 192-character query of web/test/bench.mjs.
const benchQuery = `count of translations where (user = @user:"alice" and language = @language:"de" and ` +
	`is pre translated) > 0 and not is hidden and max length > 10 and text contains "checkout" and id of file = 1`

func BenchmarkAnalyze(b *testing.B) {
	pg := Demo()
	pg.Analyze(benchQuery, strs)
	b.ReportAllocs()
	for b.Loop() {
		pg.Analyze(benchQuery, strs)
	}
}

func BenchmarkLintAndComplete(b *testing.B) {
	pg := Demo()
	at := len("count of translations where (user = @user:\"alice\" and language = @language:\"de\" and is pre")
	b.ReportAllocs()
	for b.Loop() {
		pg.Lint(benchQuery, strs)
		pg.Complete(benchQuery, strs, at)
	}
}
