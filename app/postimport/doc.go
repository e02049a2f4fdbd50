// Package postimport implements the app side of the platform's file
// post-import module (seed sections 2.2-2.5, 4.2, 7 and 8): after the
// platform parses a file into strings it POSTs a job to the module URL, and
// the app answers with a modified set of strings (split, merged, added or
// edited).
//
// It provides:
//
//   - the descriptor types ([Modules], [Module], [SignaturePatterns]) and
//     signature matching (file name regex; content regex over the first
//     64 KiB);
//   - the job and answer types ([Job], [Response], [String], [Translation],
//     [Text], [Status]), where text and status are a string or an object
//     keyed by plural category;
//   - an [http.Handler] ([Handler]) for the module URL that reads the job
//     (at most 5 MiB), loads the strings from `strings` or the NDJSON at
//     `stringsUrl` and the file from base64 `content` or `contentUrl`,
//     calls the app's [Processor] with a context that ends before the
//     platform's 2-minute wait, validates the result ([Validate]) and
//     answers `data.strings`, or `data.stringsUrl` through a [Store] when
//     the answer would be too large. Every failure becomes `error.message`,
//     the text the platform shows the user.
//
// Strings round-trip faithfully: a [String] decoded from the job remembers
// its wire form, so members the app does not change (unknown members
// included) are answered byte for byte, up to insignificant whitespace.
//
// The decisions the seed leaves open (HTTP method, which input wins, size
// and time bounds, SSRF protection for fetched URLs, status codes) are
// documented in docs/app-contract.md.
package postimport
