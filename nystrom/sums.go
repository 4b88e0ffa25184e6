package nystrom

// The sums Σφ and Σφφᵀ are kept compensated: every entry is an unevaluated pair
// hi + lo, where hi is the running sum and lo accumulates the exact rounding error of
// each addition to hi (Knuth's TwoSum; Neumaier's and Kahan–Babuška's improvement on
// Kahan's summation). The error of an entry is then at most 2ε|S| + O(Nε²)·Σ|terms|
// after N additions (Higham, Accuracy and Stability of Numerical Algorithms, §4.3),
// independent of N to first order, where a plain running sum errs by up to
// (N−1)·ε·Σ|terms|. That is what makes merged and one-pass models agree to rounding
// whatever the number of points and however they were split (docs/design.md,
// "Nyström kernel PCA"). Blocked sums alone would bound the error by the number of
// blocks instead; compensation costs one TwoSum (6 flops) per entry and addition.

// twoSum returns s = fl(a + b) and the exact error e = (a + b) − s, without branches
// (Knuth, TAOCP vol. 2, §4.2.2). It holds in round-to-nearest binary arithmetic unless
// a + b overflows; the guards of Add, AddBatch and Merge keep the sums far below that.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// vecSum is a vector of compensated sums: entry i is hi[i] + lo[i].
type vecSum struct {
	hi, lo []float64
}

func newVecSum(p int) vecSum { return vecSum{hi: make([]float64, p), lo: make([]float64, p)} }

// add adds x entrywise.
func (v vecSum) add(x []float64) {
	hi, lo := v.hi[:len(x)], v.lo[:len(x)]
	for i, b := range x {
		s, e := twoSum(hi[i], b)
		hi[i] = s
		lo[i] += e
	}
}

// merge adds the compensated sums o.
func (v vecSum) merge(o vecSum) {
	hi, lo := v.hi, v.lo[:len(v.hi)]
	ohi, olo := o.hi[:len(hi)], o.lo[:len(hi)]
	for i := range hi {
		s, e := twoSum(hi[i], ohi[i])
		hi[i] = s
		lo[i] += e + olo[i]
	}
}

// value writes the sums, hi + lo rounded once, to dst.
func (v vecSum) value(dst []float64) {
	for i := range dst {
		dst[i] = v.hi[i] + v.lo[i]
	}
}

func (v vecSum) zero() {
	clear(v.hi)
	clear(v.lo)
}

// triSum is a p×p symmetric matrix of compensated sums, of which the upper triangle
// (j ≥ i, entry i·p + j of hi and lo) is kept.
type triSum struct {
	p      int
	hi, lo []float64
}

func newTriSum(p int) triSum { return triSum{p: p, hi: make([]float64, p*p), lo: make([]float64, p*p)} }

// addOuter adds x·xᵀ (len(x) = p). The product is rounded on its own (the conversion
// forbids fusing it with the sum into an FMA, which would make TwoSum's error term
// inexact); its rounding error, at most ε·|xᵢxⱼ| per term, is not compensated.
func (t triSum) addOuter(x []float64) {
	p := t.p
	for i, xi := range x[:p] {
		hi, lo, xs := t.hi[i*p+i:i*p+p], t.lo[i*p+i:i*p+p], x[i:p]
		lo = lo[:len(hi)]
		xs = xs[:len(hi)]
		for j := range hi {
			s, e := twoSum(hi[j], float64(xi*xs[j]))
			hi[j] = s
			lo[j] += e
		}
	}
}

// addUpper adds the upper triangle of the p×p row-major matrix b (stride p).
func (t triSum) addUpper(b []float64) {
	p := t.p
	for i := range p {
		hi, lo, bs := t.hi[i*p+i:i*p+p], t.lo[i*p+i:i*p+p], b[i*p+i:i*p+p]
		lo = lo[:len(hi)]
		bs = bs[:len(hi)]
		for j := range hi {
			s, e := twoSum(hi[j], bs[j])
			hi[j] = s
			lo[j] += e
		}
	}
}

// merge adds the compensated sums o (same p).
func (t triSum) merge(o triSum) {
	p := t.p
	for i := range p {
		hi, lo := t.hi[i*p+i:i*p+p], t.lo[i*p+i:i*p+p]
		ohi, olo := o.hi[i*p+i:i*p+p], o.lo[i*p+i:i*p+p]
		lo, ohi, olo = lo[:len(hi)], ohi[:len(hi)], olo[:len(hi)]
		for j := range hi {
			s, e := twoSum(hi[j], ohi[j])
			hi[j] = s
			lo[j] += e + olo[j]
		}
	}
}

// at returns entry (i, j), j ≥ i, rounded once.
func (t triSum) at(i, j int) float64 { return t.hi[i*t.p+j] + t.lo[i*t.p+j] }

func (t triSum) zero() {
	clear(t.hi)
	clear(t.lo)
}
