package native

// TopFallbacks returns how many partial solves fell back to the full tridiagonal solve
// (topFallbacks), for the external tests.
func TopFallbacks() int64 { return topFallbacks.Load() }
