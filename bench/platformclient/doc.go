// Package platformclient holds the spike of docs/serve.md: the platform's
// official Go client, github.com/crowdin/crowdin-api-client-go v0.18.0,
// called against `croql serve`. Its test shows that the server's answers
// decode into the official models and that its 400s come back as the
// official client's validation errors; it lives in the bench module so
// that the library's go.mod does not carry the client.
package platformclient
