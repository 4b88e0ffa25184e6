package study

import (
	"math"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

// SKPCAAtMemory returns o with Features set to the largest even D whose SKPCA model of
// d-dimensional points with kernel k holds at most budget bytes (stream.SKPCA.Bytes), the way the
// studies compare SKPCA with another model at equal memory: doubling D until the
// budget is passed, then bisecting on even D. It returns D = 2, the smallest, when even
// that exceeds the budget.
func SKPCAAtMemory(k kernel.Kernel, d int, o stream.SKPCAOptions, budget int) stream.SKPCAOptions {
	bytes := func(D int) int {
		o.Features = D
		s, err := stream.NewSKPCA(k, d, o)
		if err != nil {
			return math.MaxInt
		}
		return s.Bytes()
	}
	lo, hi := 2, 2
	for bytes(hi) <= budget && hi < 1<<22 {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 2 { // the largest even D in [lo, hi) within the budget
		mid := (lo + hi) / 2 &^ 1
		if bytes(mid) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	o.Features = lo
	return o
}
