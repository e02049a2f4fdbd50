package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/croql/croql/server"
)

// Subscription states (the seed's three outcomes, section 3).
const (
	// Active answers 200 with expires.
	Active = "active"
	// Unpaid answers 402 with subscribe_link (and initializedAt when set:
	// a trial).
	Unpaid = "unpaid"
	// NotFound answers 400 with message: no subscription is defined.
	NotFound = "none"
)

// Subscription is one row of the subscriptions table: what the
// subscription endpoint answers for an organization and an app.
type Subscription struct {
	Organization string `json:"organization"`
	App          string `json:"app"`
	// Status is Active, Unpaid or NotFound.
	Status string `json:"status"`
	// Expires is YYYY-MM-DD HH:MM:SS in UTC (Active).
	Expires string `json:"expires,omitempty"`
	// SubscribeLink is the checkout URL (Unpaid).
	SubscribeLink string `json:"subscribeLink,omitempty"`
	// InitializedAt, when set on an Unpaid row, is the start of a trial
	// (YYYY-MM-DD HH:MM:SS in UTC).
	InitializedAt string `json:"initializedAt,omitempty"`
	// Message is the explanation of a NotFound answer.
	Message string `json:"message,omitempty"`
}

// Validate checks a row.
func (s Subscription) Validate() error {
	if s.Organization == "" || s.App == "" {
		return errors.New("a subscription needs an organization and an app")
	}
	switch s.Status {
	case Active:
		if _, err := time.Parse(timeLayout, s.Expires); err != nil {
			return fmt.Errorf("an active subscription needs expires as YYYY-MM-DD HH:MM:SS: %w", err)
		}
	case Unpaid:
		if s.SubscribeLink != "" {
			u, err := url.Parse(s.SubscribeLink)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("subscribeLink %q must be an absolute http(s) URL", s.SubscribeLink)
			}
		}
		if s.InitializedAt != "" {
			if _, err := time.Parse(timeLayout, s.InitializedAt); err != nil {
				return fmt.Errorf("initializedAt must be YYYY-MM-DD HH:MM:SS: %w", err)
			}
		}
	case NotFound:
	default:
		return fmt.Errorf("status %q must be %q, %q or %q", s.Status, Active, Unpaid, NotFound)
	}
	return nil
}

const timeLayout = "2006-01-02 15:04:05"

// Subscriptions is the subscriptions table of the local platform and the
// organization of each access token. It is safe for concurrent use.
type Subscriptions struct {
	mu   sync.RWMutex
	rows map[[2]string]Subscription // organization, app
	orgs map[string]string          // token → organization
}

// NewSubscriptions returns an empty table.
func NewSubscriptions() *Subscriptions {
	return &Subscriptions{rows: map[[2]string]Subscription{}, orgs: map[string]string{}}
}

// DefaultOrganization is the organization of a token the table does not
// map.
const DefaultOrganization = "1"

// SubscriptionsFile is the JSON file `croql serve --subscriptions` reads.
type SubscriptionsFile struct {
	// Organizations maps access tokens to organization ids.
	Organizations map[string]string `json:"organizations"`
	Subscriptions []Subscription    `json:"subscriptions"`
}

// ReadSubscriptions reads a SubscriptionsFile.
func ReadSubscriptions(r io.Reader) (*Subscriptions, error) {
	var f SubscriptionsFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("platform: subscriptions file: %w", err)
	}
	s := NewSubscriptions()
	for tok, org := range f.Organizations {
		if tok == "" || org == "" {
			return nil, errors.New("platform: subscriptions file: an empty token or organization")
		}
		s.orgs[tok] = org
	}
	for i, row := range f.Subscriptions {
		if _, err := s.Set(row); err != nil {
			return nil, fmt.Errorf("platform: subscriptions file: subscription %d: %w", i+1, err)
		}
	}
	return s, nil
}

// ReadSubscriptionsFile reads a SubscriptionsFile by name.
func ReadSubscriptionsFile(name string) (*Subscriptions, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	defer f.Close()
	return ReadSubscriptions(f)
}

// MapToken makes token act for organization org.
func (s *Subscriptions) MapToken(token, org string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orgs[token] = org
}

// UnmapToken forgets the organization of token (a revoked token).
func (s *Subscriptions) UnmapToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.orgs, token)
}

// Organization returns the organization of an access token.
func (s *Subscriptions) Organization(token string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if org, ok := s.orgs[token]; ok {
		return org
	}
	return DefaultOrganization
}

// Set stores a row and returns the row it replaced (zero when none).
func (s *Subscriptions) Set(row Subscription) (Subscription, error) {
	if err := row.Validate(); err != nil {
		return Subscription{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{row.Organization, row.App}
	old := s.rows[k]
	s.rows[k] = row
	return old, nil
}

// Get returns the row of an organization and an app.
func (s *Subscriptions) Get(org, app string) (Subscription, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.rows[[2]string{org, app}]
	return row, ok
}

// serveSubscription is GET /api/v2/applications/{app}/subscription: the
// seed's three outcomes for the token's organization.
func (p *Platform) serveSubscription(w http.ResponseWriter, r *http.Request) {
	app := r.PathValue("app")
	org := p.subs.Organization(server.Bearer(r))
	row, ok := p.subs.Get(org, app)
	switch {
	case ok && row.Status == Active:
		server.WriteJSON(w, http.StatusOK, map[string]string{"expires": row.Expires})
	case ok && row.Status == Unpaid:
		// Both spellings of the link: the seed's subscribe_link and the
		// platform SDK's subscribeLink (with initializedAt, which it reads
		// as the start of a trial).
		body := map[string]string{"subscribe_link": row.SubscribeLink, "subscribeLink": row.SubscribeLink}
		if row.InitializedAt != "" {
			body["initializedAt"] = row.InitializedAt
		}
		server.WriteJSON(w, http.StatusPaymentRequired, body)
	default:
		msg := row.Message
		if msg == "" {
			msg = "No subscription is defined for the app " + app + " in this organization"
		}
		// The seed's message, and the platform's error shape, which the
		// SDK's getSubscription reads (error.message).
		server.WriteJSON(w, http.StatusBadRequest, map[string]any{"message": msg,
			"error": map[string]any{"code": http.StatusBadRequest, "message": msg}})
	}
}

// PaidNotice is one "subscription paid" event the platform sent.
type PaidNotice struct {
	App    string `json:"app"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// serveSetSubscription is the admin endpoint
// PUT /admin/applications/{app}/organizations/{org}/subscription: it
// stores a row and, when the row becomes Active, sends the "subscription
// paid" event to every registered app with that identifier.
func (p *Platform) serveSetSubscription(w http.ResponseWriter, r *http.Request) {
	var row Subscription
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&row); err != nil {
		server.WriteError(w, http.StatusBadRequest, "The body must be a subscription: "+err.Error())
		return
	}
	row.App, row.Organization = r.PathValue("app"), r.PathValue("org")
	old, err := p.subs.Set(row)
	if err != nil {
		server.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	var notices []PaidNotice
	if row.Status == Active && old.Status != Active {
		notices = p.notifyPaid(r.Context(), row.Organization, row.App)
	}
	if notices == nil {
		notices = []PaidNotice{}
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"data": row, "notified": notices})
}

// notifyPaid sends POST {app}/subscription-paid?organization_id=ORG (the
// platform SDK's event route) to each registered app with identifier app.
func (p *Platform) notifyPaid(ctx context.Context, org, app string) []PaidNotice {
	var out []PaidNotice
	for _, a := range p.apps {
		if a.Identifier != app {
			continue
		}
		n := PaidNotice{App: a.Identifier, URL: a.PaidURL}
		body, _ := json.Marshal(map[string]string{"organization_id": org})
		cctx, cancel := context.WithTimeout(ctx, p.cfg.NotifyTimeout)
		req, err := http.NewRequestWithContext(cctx, http.MethodPost,
			a.PaidURL+"?organization_id="+url.QueryEscape(org), strings.NewReader(string(body)))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			var resp *http.Response
			if resp, err = p.cfg.HTTPClient.Do(req); err == nil {
				n.Status = resp.StatusCode
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
			}
		}
		cancel()
		if err != nil {
			n.Error = err.Error()
			p.log.Warn("subscription paid event failed", "app", a.Identifier, "error", err)
		}
		out = append(out, n)
	}
	return out
}
