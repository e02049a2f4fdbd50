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
//     (at most 5 MiB, within 30 s and at 8 KiB/s on average after the
//     first 3 s; at most 4 jobs at once, 503 beyond, a slot taken only once
//     the body has arrived),
//     accepts both jobType spellings (the documentation's
//     `file-post-import` and the platform SDK's `post-import-file`), loads
//     the strings from `strings` or, when the job carries none, the NDJSON
//     at `stringsUrl` (an empty or cut-short body is an error) and the file
//     from base64 `content` or `contentUrl` (both fetched with an SSRF
//     guard), checks the platform's input ([CheckJob], warnings only),
//     calls the app's [Processor] with a context that ends before the
//     platform's 2-minute wait, validates what the app changed or added
//     ([Validate]) and answers `data.strings`, or `data.stringsUrl` when
//     the answer would be too large: by default a temporary file the
//     handler serves itself, or a [Store]. Every failure becomes
//     `error.message` (HTTP 200, as the platform's SDK answers), the text
//     the platform shows the user.
//
// Strings round-trip faithfully: a [String] decoded from the job remembers
// its wire form, so members the app does not change (unknown members
// included) are answered byte for byte, up to insignificant whitespace.
//
// The decisions the seed leaves open (HTTP method, which input wins, size
// and time bounds, SSRF protection for fetched URLs, status codes) are
// documented in docs/app-contract.md.
package postimport
