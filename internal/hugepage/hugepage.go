// Package hugepage asks the operating system to back large arrays with transparent huge
// pages, where it backs memory only on request (Linux with transparent_hugepage set to
// "madvise", Debian's and Ubuntu's default). An array of kernel values or points
// touched a 4 KiB page at a time costs a page fault every 512 float64s: on a VM whose
// faults are slow, 3 s a GiB (measured on this project's 2-core machines: 1 GiB first
// touched in 3.1–3.4 s by 4 KiB pages, in 0.07 s once advised and reused), which was a
// fifth of a tracked fit and polish of 10,000 Fashion-MNIST images. NumPy advises its
// large arrays the same way (madvise(MADV_HUGEPAGE) from 4 MiB), and so scikit-learn's
// kernel matrix gets huge pages where ikpca's arrays did not.
package hugepage

// minBytes is the smallest array advised: 4 MiB, as NumPy's threshold, two huge pages
// of 2 MiB, of which at least one lies within the array whatever its alignment.
const minBytes = 4 << 20

// Grow returns scratch of length n: x[:n] if x has room, otherwise a new zeroed array
// (Floats) with a quarter more room, so that scratch growing with a model reallocates
// O(log n) times. The contents of x are not kept. The one grow of the module's scratch.
func Grow(x []float64, n int) []float64 {
	if cap(x) >= n {
		return x[:n]
	}
	return Floats(n, n+n/4+16)
}

// Floats returns a slice of n float64s with capacity c (at least n), allocated by make
// and advised for huge pages (Advise) before anything touches it.
func Floats(n, c int) []float64 {
	x := make([]float64, n, max(n, c))
	Advise(x)
	return x
}

// Map returns an array of n float64s mapped from the operating system outside Go's heap
// and advised for huge pages, and the function that unmaps it, after which the array
// must not be used; where it cannot map (another system, or mmap failing), an array
// from make and a function that does nothing. For a large scratch array with a clear
// end — a Polish's kept kernel values, gigabytes — that must be given back when its
// work ends: an array of the heap is given back only when the collector next runs, and
// a Polish followed by a Certify held both of theirs at once (2.3 GB at the peak where
// one was 1.2 GB).
func Map(n int) (x []float64, unmap func()) {
	if x, unmap := mapFloats(n); x != nil {
		return x, unmap
	}
	return Floats(n, n), func() {}
}
