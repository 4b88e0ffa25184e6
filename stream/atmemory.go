package stream

import (
	"math"

	"github.com/ikpca/ikpca/kernel"
)

// AtMemory returns o with Features set to the largest even D whose SKPCA model of
// d-dimensional points with kernel k holds at most budget bytes (SKPCA.Bytes): the way
// to compare SKPCA with another model at equal memory, as the studies of docs/ and
// bench/certified do. It doubles D until the budget is passed, then bisects on even D;
// it returns D = 2, the smallest, when even that exceeds the budget, and when o or k
// are refused by NewSKPCA (its error then comes from NewSKPCA with the options
// returned). The other options are kept.
func (o SKPCAOptions) AtMemory(k kernel.Kernel, d, budget int) SKPCAOptions {
	bytes := func(D int) int {
		o.Features = D
		s, err := NewSKPCA(k, d, o)
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
