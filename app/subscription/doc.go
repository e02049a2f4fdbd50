// Package subscription implements the app side of the platform's subscription
// check (seed sections 2.1, 3, 4.1, 7 and 8): a client for
//
//	GET {base_url}/api/v2/applications/{app-identifier}/subscription
//
// a cache keyed by base URL, organization, app and token that keeps the
// `expires` moment and re-checks it against an injectable clock on every
// hit, net/http middleware that restricts access to the app's routes
// accordingly (with trials after a 402 that carries `initializedAt`, and a
// redirect or an HTML page for restricted page views), a handler for the
// platform's "subscription paid" event ([PaidHandler]), and the seed's
// proration rule for the first payment with exact money arithmetic.
//
// The three outcomes of the endpoint are reported as a [Result] whose
// [State] is [Active], [Unpaid] or [NotFound]; they are not errors. Anything
// else (timeouts, network errors, 5xx after retries, unexpected statuses or
// bodies) is an error, and what the app does then is an explicit [ErrorPolicy]:
// restrict by default, grant optionally, and in both cases the failure is
// reported, never swallowed. A token the platform refuses (401/403) restricts
// under every policy.
//
// The decisions the seed leaves open (retry policy, cache lifetimes, the
// timezone of `expires`, 400 versus 404, rounding of the first payment) are
// documented in docs/app-contract.md.
package subscription
