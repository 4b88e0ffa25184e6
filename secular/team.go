package secular

import "runtime"

// workers returns the number of goroutines to use for a problem of size k.
func (s *Solver) workers(k int) int {
	threshold := s.Serial
	if threshold <= 0 {
		threshold = defaultSerial
	}
	if k < threshold {
		return 1
	}
	w := s.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return w
}
