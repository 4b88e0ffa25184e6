package update

// Bytes returns the memory s holds in its arrays, in bytes: the eigenvectors and
// eigenvalues, the second buffer that updates write to, and the secular solver's K×K
// table of eigenvectors (secular.Solver.Reserve) — the three n×n arrays of an update —
// leaving out the O(n) scratch vectors. It grows with Reserve and never shrinks.
func (s *Sym) Bytes() int {
	b := cap(s.u) + cap(s.values) + cap(s.spare)
	if s.updateCap > 0 {
		b += (s.updateCap + 1) * (s.updateCap + 1)
	}
	return 8 * b
}
