// Package goclient tests croql serve with the platform's official Go API
// client, github.com/crowdin/crowdin-api-client-go v0.18.0, over
// loopback: every list and single-object endpoint, the documented list
// parameters, the two-step upload, and, by reflection over the client's
// models, that every field they declare is in croql serve's answers.
//
// It is in the server's module (server/go.mod) so that the library's
// go.mod does not require the platform's client. The client's base URL is a constant
// (https://api.crowdin.com/); a RoundTripper rewrites each request to
// croql serve's address.
package goclient
