package server

import "context"

// ResidentServed counts the list requests s answered from a resident
// snapshot.
func ResidentServed(s *Server) int64 { return s.resident.served.Load() }

// SetResidentPageVisits sets how many objects s's evaluator checks for a
// first page before it asks the database's plan.
func SetResidentPageVisits(s *Server, n int) { s.resident.pageVisits = n }

// CountChecks returns ctx keeping the croql queries its request checks
// (the server keeps them there rather than in a context of its own), and
// how many checks the request has made.
func CountChecks(ctx context.Context) (context.Context, func() int) {
	ctx = withQueries(ctx)
	rq := queriesOf(ctx)
	return ctx, func() int {
		rq.mu.Lock()
		defer rq.mu.Unlock()
		return len(rq.checked)
	}
}

// SetSeekMinOffset sets the offset from which s pages the lists of the
// project's other data through a seek index.
func SetSeekMinOffset(s *Server, n int64) { s.seeks.minOffset = n }

// SeekServed counts the pages s read through a seek index.
func SeekServed(s *Server) int64 { return s.seeks.served.Load() }

// SetKeyWalkRows sets how many rows in key order a first page on SQLite
// reads before it asks the planner's plan (-1: it asks it at once).
func SetKeyWalkRows(s *Server, n int64) { s.plans.rows = n }

// KeyWalks counts the pages s read by a key walk.
func KeyWalks(s *Server) int64 { return s.plans.walks.Load() }
