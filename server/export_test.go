package server

// ResidentServed counts the list requests s answered from a resident
// snapshot.
func ResidentServed(s *Server) int64 { return s.resident.served.Load() }
