package nystrom

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// Encoding, version 1 (all integers and floats little-endian; docs/design.md, "Nyström
// kernel PCA"):
//
//	magic      8 bytes  "IKPCANYS"
//	version    uint32   1
//	name       uint32 length (≤ 255), then the kernel Spec's name
//	kernel     float64 σ, int64 degree, float64 γ, float64 c (kernel.Spec: Sigma,
//	           Degree, Gamma, Coef0; γ is the polynomial's, or an RBF's or Laplacian's
//	           given by γ, with σ zero)
//	options    uint32 landmark strategy, uint64 seed, float64 tolerance
//	sizes      uint64 r (landmarks), d (dimension), p (features r'), n (points)
//	landmarks  r·d float64, row-major
//	values     p float64, the eigenvalues of K_LL kept, descending
//	map        r·p float64, F = W·Σ^−½, row-major
//	shift      p float64, c
//	sum        p float64 hi, then p lo: Σ(φ − c)
//	squares    p(p+1)/2 float64 hi, then as many lo: the upper triangle of
//	           Σ(φ − c)(φ − c)ᵀ, row by row
//	sha256     32 bytes over everything above
//
// Floats are stored bit for bit, both halves of the compensated sums included, so that
// a decoded model reads and merges exactly as the encoded one. The feature map is
// stored rather than recomputed from the landmarks, so that every worker of a
// distributed fit uses the same map bits whatever its BLAS.
const (
	encodingMagic   = "IKPCANYS"
	encodingVersion = 1
	maxNameLen      = 255
	// headerFixed is the length of the header after the kernel's name.
	headerFixed = 4*8 + 4 + 8 + 8 + 4*8
)

// MarshalBinary encodes the model — landmarks, feature map, options and sums — in the
// format above: r·d + r·r' + r'² + O(r') numbers. It implements
// encoding.BinaryMarshaler and leaves the model unchanged. The kernel must describe
// itself (kernel.Specified: every built-in kernel and kernel.Func); a Func's function is
// not encoded, only its name (ErrArgument otherwise).
func (m *Model) MarshalBinary() ([]byte, error) {
	sk, ok := m.kern.(kernel.Specified)
	if !ok {
		return nil, fmt.Errorf("%w: kernel %T cannot be described (implement kernel.Specified)", ErrArgument, m.kern)
	}
	spec := sk.Spec()
	if len(spec.Name) > maxNameLen {
		return nil, fmt.Errorf("%w: kernel name of %d bytes, at most %d", ErrArgument, len(spec.Name), maxNameLen)
	}
	r, d, p := m.r, m.d, m.p
	tri := p * (p + 1) / 2
	floats := r*d + p + r*p + p + 2*p + 2*tri
	b := make([]byte, 0, len(encodingMagic)+8+len(spec.Name)+headerFixed+8*floats+sha256.Size)
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	f64 := func(xs ...float64) { b = wire.AppendFloats(b, xs...) }
	b = append(b, encodingMagic...)
	u32(encodingVersion)
	u32(uint32(len(spec.Name)))
	b = append(b, spec.Name...)
	f64(spec.Sigma)
	u64(uint64(int64(spec.Degree)))
	f64(spec.Gamma, spec.Coef0)
	u32(uint32(m.opts.Landmarks))
	u64(m.opts.Seed)
	f64(m.opts.Tolerance)
	u64(uint64(r))
	u64(uint64(d))
	u64(uint64(p))
	u64(uint64(m.n))
	for i := range r {
		f64(m.land.RawRowView(i)...)
	}
	f64(m.sigma...)
	f64(m.f...)
	f64(m.shift...)
	f64(m.sum.hi...)
	f64(m.sum.lo...)
	for _, half := range [][]float64{m.sq.hi, m.sq.lo} {
		for i := range p {
			f64(half[i*p+i : (i+1)*p]...)
		}
	}
	return wire.Seal(b), nil
}

// UnmarshalBinary replaces m by the model encoded in data (by MarshalBinary). It
// implements encoding.BinaryUnmarshaler. A built-in kernel is rebuilt from its Spec;
// any other (a kernel.Func) must be m's own kernel already, describing itself with the
// same Spec — make m with New and that kernel first — or the error wraps ErrArgument.
//
// Data that is not an encoded model, of another version, truncated or corrupted gives
// an error wrapping ErrEncoding, and so does checksummed data describing a model that
// cannot exist: every size is checked against the length of the data before anything
// is allocated, no byte may be left over, every number must be finite, the options and
// the kernel's parameters valid (and the Spec as the kernel itself reports it), the
// eigenvalues positive, descending and above the tolerance, the sums of a model
// without points zero, and the sums of squares non-negative and bounded, with
// |Sᵢⱼ| ≤ √(SᵢᵢSⱼⱼ) and sᵢ² ≤ n·Sᵢᵢ (Cauchy–Schwarz) up to rounding. On error m is
// unchanged.
func (m *Model) UnmarshalBinary(data []byte) error {
	got, err := decode(data, m.kern)
	if err != nil {
		return err
	}
	*m = *got
	return nil
}

// decode reads an encoded model; own is the receiver's kernel, for a custom kernel.
func decode(data []byte, own kernel.Kernel) (*Model, error) {
	_, body, err := wire.Open(data, encodingMagic, 4, ErrEncoding, "Nyström model", encodingVersion)
	if err != nil {
		return nil, err
	}
	dec := wire.NewReader(body)
	nameLen := dec.U32()
	if nameLen > maxNameLen || uint64(nameLen)+headerFixed > uint64(dec.Len()) {
		return nil, fmt.Errorf("%w: kernel name of %d bytes", ErrEncoding, nameLen)
	}
	spec := kernel.Spec{Name: string(dec.Bytes(int(nameLen)))}
	spec.Sigma = dec.F64()
	degree := int64(dec.U64())
	spec.Gamma, spec.Coef0 = dec.F64(), dec.F64()
	opts := Options{Landmarks: Strategy(dec.U32()), Seed: dec.U64(), Tolerance: dec.F64()}
	r64, d64, p64, n64 := dec.U64(), dec.U64(), dec.U64(), dec.U64()

	// Bound every size by the data present before computing with it: each of r·d, r·p
	// and p·(p+1) is at most the number of floats, so that their sum cannot overflow
	// and nothing is allocated for data that is not there.
	have := uint64(dec.Len() / 8)
	if r64 < 1 || d64 < 1 || p64 < 1 || p64 > r64 || r64 > have || d64 > have/r64 || p64 > have/r64 || p64+1 > have/p64 {
		return nil, fmt.Errorf("%w: sizes %d landmarks × %d, %d features, for %d bytes of data", ErrEncoding, r64, d64, p64, dec.Len())
	}
	r, d, p := int(r64), int(d64), int(p64)
	tri := p * (p + 1) / 2
	if want := r*d + p + r*p + p + 2*p + 2*tri; dec.Len()%8 != 0 || int(have) != want {
		return nil, fmt.Errorf("%w: %d bytes of data, want %d", ErrEncoding, dec.Len(), 8*want)
	}
	if n64 > maxPoints {
		return nil, fmt.Errorf("%w: %d points", ErrEncoding, n64)
	}
	n := int(n64)
	if degree < math.MinInt32 || degree > math.MaxInt32 {
		return nil, fmt.Errorf("%w: kernel degree %d", ErrEncoding, degree)
	}
	spec.Degree = int(degree)
	opts.Rank = r
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	k, err := decodeKernel(spec, own)
	if err != nil {
		return nil, err
	}

	var fields [8][]float64
	for i, f := range []struct {
		what string
		k    int
	}{{"landmarks", r * d}, {"eigenvalues", p}, {"feature map", r * p}, {"shift", p},
		{"sums", p}, {"sums' compensation", p}, {"sums of squares", tri}, {"sums of squares' compensation", tri}} {
		if fields[i], err = dec.Floats(f.k, ErrEncoding, f.what); err != nil {
			return nil, err
		}
	}
	land, sigma, f, shift := fields[0], fields[1], fields[2], fields[3]
	for j, v := range sigma {
		if !(v > 0) || j > 0 && !(v <= sigma[j-1]) || !(v > opts.cutoff(r)*sigma[0]) {
			return nil, fmt.Errorf("%w: eigenvalue %d of the landmarks is %g (largest %g, tolerance %g)", ErrEncoding, j, v, sigma[0], opts.cutoff(r))
		}
	}
	m := &Model{kern: k, opts: opts, d: d, r: r, p: p, land: mat.NewDense(r, d, land), sigma: sigma, f: f, shift: shift}
	m.allocate()
	copy(m.sum.hi, fields[4])
	copy(m.sum.lo, fields[5])
	for half, src := range [][]float64{fields[6], fields[7]} {
		dst := m.sq.hi
		if half == 1 {
			dst = m.sq.lo
		}
		for i := range p {
			copy(dst[i*p+i:(i+1)*p], src[:p-i])
			src = src[p-i:]
		}
	}
	m.n = n
	if err := m.checkSums(); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeKernel rebuilds the kernel of an encoding: a built-in one from its Spec, which
// must be the Spec that kernel reports; any other must be own, with the same Spec.
func decodeKernel(spec kernel.Spec, own kernel.Kernel) (kernel.Kernel, error) {
	if !utf8.ValidString(spec.Name) {
		return nil, fmt.Errorf("%w: kernel name is not UTF-8", ErrEncoding)
	}
	if kernel.IsBuiltin(spec.Name) {
		k, err := kernel.New(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrEncoding, err)
		}
		if !sameSpec(k.(kernel.Specified).Spec(), spec) {
			return nil, fmt.Errorf("%w: kernel %+v is not as the kernel describes itself", ErrEncoding, spec)
		}
		return k, nil
	}
	sk, ok := own.(kernel.Specified)
	if own == nil || isNilPointer(own) || !ok || !sameSpec(sk.Spec(), spec) {
		return nil, fmt.Errorf("%w: the encoded kernel %q is not built in: decode into a model made with it", ErrArgument, spec.Name)
	}
	return own, nil
}

// sameSpec reports whether two Specs are the same bit for bit: == on the struct holds
// for −0 and +0, and an encoding with −0 in a parameter the kernel does not use (found
// by FuzzLoadModel) would decode to a model that encodes to other bytes.
func sameSpec(a, b kernel.Spec) bool {
	return a.Name == b.Name && a.Degree == b.Degree &&
		math.Float64bits(a.Sigma) == math.Float64bits(b.Sigma) &&
		math.Float64bits(a.Gamma) == math.Float64bits(b.Gamma) &&
		math.Float64bits(a.Coef0) == math.Float64bits(b.Coef0)
}

// checkSums reports sums that no set of points gives (ErrEncoding): non-zero sums
// without points, a half of a sum beyond 2¹⁰⁰¹, a negative or too large sum of
// squares, or a sum or an off-diagonal sum of products beyond Cauchy–Schwarz's bound by
// more than rounding (a relative 1e-9, and an absolute 2⁻⁵⁰⁰ per point for squares that
// underflowed).
func (m *Model) checkSums() error {
	p, n := m.p, float64(m.n)
	if m.n == 0 {
		for _, s := range [][]float64{m.sum.hi, m.sum.lo, m.sq.hi, m.sq.lo} {
			for _, v := range s {
				if v != 0 {
					return fmt.Errorf("%w: non-zero sums without points", ErrEncoding)
				}
			}
		}
		return nil
	}
	// Every half of every sum within 2¹⁰⁰¹: a genuine running sum is bounded by the
	// sum of its terms' magnitudes, which Cauchy–Schwarz bounds by the sums of squares,
	// and its compensation by the same; so C, formed from them, is finite.
	for _, s := range [][]float64{m.sum.hi, m.sum.lo, m.sq.hi, m.sq.lo} {
		for i, v := range s {
			if !(math.Abs(v) <= 2*sumLimit) {
				return fmt.Errorf("%w: a sum's entry %d is %g", ErrEncoding, i, v)
			}
		}
	}
	diag := make([]float64, p)
	for i := range p {
		diag[i] = m.sq.at(i, i)
		if !(diag[i] >= 0 && m.sq.hi[i*p+i] <= sumLimit && diag[i] <= sumLimit) {
			return fmt.Errorf("%w: sum of squares %d is %g", ErrEncoding, i, diag[i])
		}
	}
	const rel, tiny = 1 + 1e-9, 0x1p-500
	for i := range p {
		if s := m.sum.hi[i] + m.sum.lo[i]; !(math.Abs(s) <= math.Sqrt(n*diag[i])*rel+n*tiny) {
			return fmt.Errorf("%w: sum %d is %g, its sum of squares %g over %d points", ErrEncoding, i, s, diag[i], m.n)
		}
		for j := i + 1; j < p; j++ {
			if s := m.sq.at(i, j); !(math.Abs(s) <= math.Sqrt(diag[i])*math.Sqrt(diag[j])*rel+1e-10*(diag[i]+diag[j])+n*tiny) {
				return fmt.Errorf("%w: sum of products (%d, %d) is %g, beyond its sums of squares %g and %g", ErrEncoding, i, j, s, diag[i], diag[j])
			}
		}
	}
	return nil
}
