package subscription

import (
	"errors"
	"fmt"
	"time"
)

// State is the outcome of a subscription check as the seed's section 3 names it.
type State int

const (
	// StateUnknown is the zero State; a Result never carries it when the
	// check returned without error.
	StateUnknown State = iota
	// Active: the platform answered 200 with `expires`. Access is granted
	// until that moment.
	Active
	// Unpaid: the platform answered 402 with a subscribe link.
	Unpaid
	// NotFound: the platform answered 400 (or 404) with a message: the app
	// was removed from the organization or no subscription is defined.
	NotFound
)

// String returns the lower-case name used in JSON answers: "active",
// "unpaid", "not_found" or "unknown".
func (s State) String() string {
	switch s {
	case Active:
		return "active"
	case Unpaid:
		return "unpaid"
	case NotFound:
		return "not_found"
	default:
		return "unknown"
	}
}

// Result is one answer of the subscription endpoint.
type Result struct {
	// State is the outcome.
	State State
	// Expires is the moment until which access is granted (Active only).
	Expires time.Time
	// SubscribeLink is the checkout page URL to show the user (Unpaid only;
	// may be empty when the platform sent none).
	SubscribeLink string
	// InitializedAt is the start of a trial when the platform sends
	// `initializedAt` with a 402 (zero otherwise).
	InitializedAt time.Time
	// Message is the platform's explanation (NotFound only).
	Message string
	// StatusCode is the HTTP status the platform answered with.
	StatusCode int
	// CheckedAt is the moment (by the client's clock) the answer arrived.
	CheckedAt time.Time
}

// Allowed reports whether r grants access at now: only an Active result
// whose Expires lies after now does.
func (r Result) Allowed(now time.Time) bool {
	return r.State == Active && now.Before(r.Expires)
}

// String describes the result for logs.
func (r Result) String() string {
	switch r.State {
	case Active:
		return fmt.Sprintf("active until %s", r.Expires.Format(time.RFC3339))
	case Unpaid:
		return fmt.Sprintf("unpaid (subscribe at %q)", r.SubscribeLink)
	case NotFound:
		return fmt.Sprintf("not found: %s", r.Message)
	default:
		return "unknown"
	}
}

// ErrorPolicy says what to do when the subscription cannot be verified
// (network errors, timeouts, 5xx after retries, unexpected answers).
type ErrorPolicy int

const (
	// Restrict denies access while the check fails. It is the default
	// (fail closed).
	Restrict ErrorPolicy = iota
	// Grant allows access while the check fails (fail open). The failure is
	// still reported to the configured reporter.
	Grant
)

// String returns "restrict" or "grant".
func (p ErrorPolicy) String() string {
	if p == Grant {
		return "grant"
	}
	return "restrict"
}

// Reason explains a Decision.
type Reason int

const (
	// ReasonActive: an active subscription that has not expired.
	ReasonActive Reason = iota + 1
	// ReasonExpired: the platform answered 200 but `expires` has passed.
	ReasonExpired
	// ReasonUnpaid: the platform answered 402.
	ReasonUnpaid
	// ReasonNotFound: the platform answered 400 or 404.
	ReasonNotFound
	// ReasonCheckFailed: the check failed; the ErrorPolicy decided.
	ReasonCheckFailed
	// ReasonExempt: the app is free or paid through its own payment system,
	// so no check is made.
	ReasonExempt
	// ReasonTrial: the platform answered 402 with `initializedAt` and the
	// trial that started then has not ended.
	ReasonTrial
)

// String returns a short snake_case name of the reason.
func (r Reason) String() string {
	switch r {
	case ReasonActive:
		return "active"
	case ReasonExpired:
		return "expired"
	case ReasonUnpaid:
		return "unpaid"
	case ReasonNotFound:
		return "not_found"
	case ReasonCheckFailed:
		return "check_failed"
	case ReasonExempt:
		return "exempt"
	case ReasonTrial:
		return "trial"
	default:
		return "unknown"
	}
}

// Decision is what the app does for one request.
type Decision struct {
	// Allow reports whether access is granted.
	Allow bool
	// Reason explains Allow.
	Reason Reason
	// Result is the subscription answer (zero when the check failed).
	Result Result
	// Err is the check's error when Reason is ReasonCheckFailed.
	Err error
	// TrialEnds is when the trial ends (ReasonTrial only).
	TrialEnds time.Time
}

// DefaultTrialDays is the trial length when a Trial leaves it unset: two
// weeks, as the platform's app SDK defaults (@crowdin/app-project-module
// 3.2.2, out/util/subscription.js: "default 2 weeks").
const DefaultTrialDays = 14

// Trial is how long a trial lasts after the platform's `initializedAt`
// (sent with a 402). Like the platform's SDK (pricing.trial,
// pricing.trialCrowdin, pricing.trialEnterprise) it can differ per edition.
// The zero value gives DefaultTrialDays for both editions.
type Trial struct {
	// Days applies to both editions unless overridden; 0 means
	// DefaultTrialDays and a negative value disables trials.
	Days int
	// StandardDays and EnterpriseDays, when non-zero, override Days for
	// their edition (negative: no trial in that edition).
	StandardDays, EnterpriseDays int
}

// Length returns the trial length in the edition; 0 means no trial.
func (t Trial) Length(e Edition) time.Duration {
	days := t.Days
	switch {
	case e == Enterprise && t.EnterpriseDays != 0:
		days = t.EnterpriseDays
	case e != Enterprise && t.StandardDays != 0:
		days = t.StandardDays
	}
	if days == 0 {
		days = DefaultTrialDays
	}
	if days < 0 {
		return 0
	}
	return time.Duration(days) * 24 * time.Hour
}

// TrialEnds returns the end of the trial r announces (a 402 with
// initializedAt) in the edition, and false when r announces none.
func (r Result) TrialEnds(t Trial, e Edition) (time.Time, bool) {
	if r.State != Unpaid || r.InitializedAt.IsZero() {
		return time.Time{}, false
	}
	d := t.Length(e)
	if d == 0 {
		return time.Time{}, false
	}
	return r.InitializedAt.Add(d), true
}

// Rules are what Decide applies besides the platform's answer.
type Rules struct {
	// OnError is the policy for failed checks (default Restrict).
	OnError ErrorPolicy
	// Trial is the trial length (default DefaultTrialDays).
	Trial Trial
}

// Decide applies the seed's section 3 with the default trial; see
// [Rules.Decide].
func Decide(res Result, err error, now time.Time, policy ErrorPolicy) Decision {
	return Rules{OnError: policy}.Decide(res, err, now, Standard)
}

// Decide applies the seed's section 3 to the outcome of one check at the
// moment now: Active grants until Expires; Unpaid restricts, except during a
// trial (a 402 with initializedAt, until initializedAt plus the trial length
// of the edition); NotFound restricts; a failed check (err != nil) follows
// OnError — except a request that could not even be formed
// (ErrInvalidRequest) and a token the platform refused (ErrUnauthorized,
// 401/403), which restrict under every policy, so neither a
// misconfiguration nor a bad token opens the app.
func (rules Rules) Decide(res Result, err error, now time.Time, edition Edition) Decision {
	if err != nil {
		allow := rules.OnError == Grant && !errors.Is(err, ErrInvalidRequest) && !errors.Is(err, ErrUnauthorized)
		return Decision{Allow: allow, Reason: ReasonCheckFailed, Err: err}
	}
	switch res.State {
	case Active:
		if res.Allowed(now) {
			return Decision{Allow: true, Reason: ReasonActive, Result: res}
		}
		return Decision{Allow: false, Reason: ReasonExpired, Result: res}
	case Unpaid:
		if end, ok := res.TrialEnds(rules.Trial, edition); ok && now.Before(end) {
			return Decision{Allow: true, Reason: ReasonTrial, Result: res, TrialEnds: end}
		}
		return Decision{Allow: false, Reason: ReasonUnpaid, Result: res}
	case NotFound:
		return Decision{Allow: false, Reason: ReasonNotFound, Result: res}
	default:
		return Decision{
			Allow:  rules.OnError == Grant,
			Reason: ReasonCheckFailed,
			Result: res,
			Err:    fmt.Errorf("subscription: result without a state: %w", ErrUnexpectedResponse),
		}
	}
}
