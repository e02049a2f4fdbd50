package diag

import "errors"

// SpanError is an error a back end (the SQL generator, the evaluator's
// compiler) returns about one node of a checked query: Span is that node's
// span in the source, Err what went wrong. The croql facade turns it into a
// Diagnostic over Span instead of one over the whole query; anyone else
// finds it with errors.As or SpanOf, through any wrapping.
//
// Error is Err's message alone (no offsets): it reads as it did before the
// span was attached, and the span is shown where the diagnostic is.
type SpanError struct {
	Span Span
	Err  error
}

// At returns err as a SpanError over sp; a nil err stays nil.
func At(sp Span, err error) error {
	if err == nil {
		return nil
	}
	return &SpanError{Span: sp, Err: err}
}

func (e *SpanError) Error() string { return e.Err.Error() }

// Unwrap returns Err, so that errors.Is finds the sentinel errors it wraps.
func (e *SpanError) Unwrap() error { return e.Err }

// SpanOf returns the span of the first SpanError in err's chain, if any.
func SpanOf(err error) (Span, bool) {
	var se *SpanError
	if errors.As(err, &se) {
		return se.Span, true
	}
	return Span{}, false
}
