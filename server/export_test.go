package server

// ResidentServed counts the list requests s answered from a resident
// snapshot.
func ResidentServed(s *Server) int64 { return s.resident.served.Load() }

// SetResidentPageVisits sets how many objects s's evaluator checks for a
// first page before it asks the database's plan.
func SetResidentPageVisits(s *Server, n int) { s.resident.pageVisits = n }
