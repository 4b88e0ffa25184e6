package nystrom

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Encoding, version 3: the frame of package internal/wire (magic "IKPCANYS", the
// version, the body's length, the body, a SHA-256 of everything before it) around the
// body below, all integers and floats little-endian (docs/design.md, "Nyström kernel
// PCA"):
//
//	kernel     the kernel's Spec in the layout of internal/kernelwire: uint32 name
//	           length (≤ 255), the name, float64 σ, float64 γ, int64 degree, float64 c
//	           (γ is the polynomial's, or an RBF's or Laplacian's given by γ, with σ zero)
//	options    uint32 landmark strategy, uint64 seed, float64 tolerance,
//	           uint8 flags (bit 0: Uncentred; the others zero)
//	sizes      uint64 r (landmarks), d (dimension), p (features r'), n (points)
//	landmarks  r·d float64, row-major
//	values     p float64, the eigenvalues of K_LL kept, descending
//	map        r·p float64, F = W·Σ^−½, row-major
//	shift      p float64, c (zero for an uncentred model)
//	sum        p float64 hi, then p lo: Σ(φ − c)
//	squares    p(p+1)/2 float64 hi, then as many lo: the upper triangle of
//	           Σ(φ − c)(φ − c)ᵀ, row by row
//
// Floats are stored bit for bit, both halves of the compensated sums included, so that
// a decoded model reads, merges and grows exactly as the encoded one. The feature map is
// stored rather than recomputed from the landmarks, so that every worker of a
// distributed fit uses the same map bits whatever its BLAS. Versions 1 (the frame of
// package wire's Open, without the body's length, and without the flags) and 2 (the
// kernel's degree before γ) are no longer read.
const (
	encodingMagic   = "IKPCANYS"
	encodingVersion = 3
	// headerFixed is the length of the body after the kernel's Spec and before the
	// floats: the options and the sizes.
	headerFixed = 4 + 8 + 8 + 1 + 4*8
	// flagUncentred is the flag of Options.Uncentred.
	flagUncentred = 1
)

// bodyLength returns the length of the body of md's encoding after the kernel's Spec.
func (md *Model) bodyLength() int {
	r, d, p := md.r, md.d, md.p
	tri := p * (p + 1) / 2
	return headerFixed + 8*(r*d+p+r*p+p+2*p+2*tri)
}

// format is the encoding's frame, its name in errors and its error kinds.
var format = wire.Format{Magic: encodingMagic, Version: encodingVersion, What: "Nyström model",
	Argument: ErrArgument, Encoding: ErrEncoding}

// body returns the body of md's encoding, its length and its writer. A zero Model, or a
// kernel that cannot be encoded (kernelwire.Of), is an ErrArgument.
func (md *Model) body() (wire.Body, error) {
	if md.r == 0 {
		return wire.Body{}, errZero
	}
	r, p := md.r, md.p
	var flags uint8
	if md.opts.Uncentred {
		flags |= flagUncentred
	}
	return kernelwire.Body(md.kern, ErrArgument, wire.Body{Len: uint64(md.bodyLength()), Write: func(f *wire.Fields) {
		f.U32(uint32(md.opts.Strategy))
		f.U64(md.opts.Seed)
		f.F64(md.opts.Tolerance)
		f.U8(flags)
		f.U64(uint64(r))
		f.U64(uint64(md.d))
		f.U64(uint64(p))
		f.U64(uint64(md.n))
		for i := range r {
			f.F64(md.land.RawRowView(i)...)
		}
		f.F64(md.sigma...)
		f.F64(md.f...)
		f.F64(md.shift...)
		f.F64(md.sum.hi...)
		f.F64(md.sum.lo...)
		for _, half := range [][]float64{md.sq.hi, md.sq.lo} {
			for i := range p {
				f.F64(half[i*p+i : (i+1)*p]...)
			}
		}
	}})
}

// MarshalBinary encodes the model — landmarks, feature map, options and sums — in the
// format above: r·d + r·r' + r'² + O(r') numbers. It implements
// encoding.BinaryMarshaler and leaves the model unchanged. The kernel must describe
// itself (kernel.Specified: every built-in kernel and kernel.Func, with a name of at
// most 255 bytes of UTF-8; ErrArgument otherwise); a Func's function is not encoded,
// only its name, and UnmarshalBinary finds it again in the kernel registry
// (kernel.Register).
func (md *Model) MarshalBinary() ([]byte, error) { return format.Marshal(md.body) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time,
// with the errors of ikpca.Persistent.
func (md *Model) MarshalBinaryTo(w io.Writer) (int, error) { return format.MarshalTo(w, md.body) }

// UnmarshalBinary replaces md — a zero Model or any other — by the model encoded in
// data (by MarshalBinary or MarshalBinaryTo), by the rules of ikpca.Persistent: the
// kernel is rebuilt by kernel.New from its Spec, and data that is not an encoded model,
// or checksummed data describing a model that cannot exist or cannot be rebuilt here,
// is an ErrEncoding. Every size is checked against the length of the data before
// anything is allocated, no byte may be left over, every number must be
// finite, the options and the kernel's parameters valid (and the Spec as the kernel
// itself reports it), a Func registered, the eigenvalues positive, descending and above
// the tolerance, an uncentred model's shift zero, the sums of a model without points
// zero, and the sums of squares non-negative and bounded, with |Sᵢⱼ| ≤ √(SᵢᵢSⱼⱼ) and
// sᵢ² ≤ n·Sᵢᵢ (Cauchy–Schwarz) up to rounding; and the feature map must be that of the
// landmarks — eigenpairs of their kernel matrix, orthonormal, and a centred model's
// shift their mean feature — within rounding (O(r²·(d + p)), as New; docs/design.md, "Nyström kernel PCA"). On
// error md is unchanged.
func (md *Model) UnmarshalBinary(data []byte) error {
	return kernelwire.Unmarshal(format, md, data, headerFixed, decode)
}

// UnmarshalBinaryFrom restores md from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (md *Model) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return format.UnmarshalFrom(r, md.UnmarshalBinary)
}

// decode reads the body of an encoded model after its kernel k: the header (of
// headerFixed bytes, there), then the rest, checked as it is read.
func decode(k kernel.Kernel, dec *wire.Reader) (*Model, error) {
	opts := Options{Strategy: Strategy(dec.U32()), Seed: dec.U64(), Tolerance: dec.F64()}
	flags := dec.U8()
	if flags&^flagUncentred != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrEncoding, flags)
	}
	opts.Uncentred = flags&flagUncentred != 0
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
	opts.Landmarks = r
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoding, err)
	}

	fields, err := dec.Arrays(ErrEncoding, wire.Array{What: "landmarks", Len: r * d}, wire.Array{What: "eigenvalues", Len: p},
		wire.Array{What: "feature map", Len: r * p}, wire.Array{What: "shift", Len: p},
		wire.Array{What: "sums", Len: p}, wire.Array{What: "sums' compensation", Len: p},
		wire.Array{What: "sums of squares", Len: tri}, wire.Array{What: "sums of squares' compensation", Len: tri})
	if err != nil {
		return nil, err
	}
	land, sigma, f, shift := fields[0], fields[1], fields[2], fields[3]
	for j, v := range sigma {
		if !(v > 0) || j > 0 && !(v <= sigma[j-1]) || !(v > opts.cutoff(r)*sigma[0]) {
			return nil, fmt.Errorf("%w: eigenvalue %d of the landmarks is %g (largest %g, tolerance %g)", ErrEncoding, j, v, sigma[0], opts.cutoff(r))
		}
	}
	if opts.Uncentred {
		// Bit for bit +0, as New makes it: a −0 would encode to other bytes.
		for j, v := range shift {
			if math.Float64bits(v) != 0 {
				return nil, fmt.Errorf("%w: shift %d of an uncentred model is %g", ErrEncoding, j, v)
			}
		}
	}
	md := &Model{kern: k, opts: opts, d: d, r: r, p: p, land: mat.NewDense(r, d, land), sigma: sigma, f: f, shift: shift}
	md.allocate()
	copy(md.sum.hi, fields[4])
	copy(md.sum.lo, fields[5])
	unpackUpper(md.sq, fields[6], fields[7])
	md.n = n
	if err := md.checkSums(); err != nil {
		return nil, err
	}
	if err := md.verifyMap(); err != nil {
		return nil, err
	}
	return md, nil
}

// verifyMap checks that the stored feature map belongs to the stored landmarks
// (docs/design.md, "Nyström kernel PCA"): with K_LL recomputed from them and W = F·Σ^½
// the kept eigenvectors, each pair's residual ‖K_LL·wⱼ − σⱼ·wⱼ‖ within 1e-8·σ₁ +
// 4·r·ε·max Sᵢ (Sᵢ = Σₗ|kᵢₗ|: the rounding of a product with K_LL, Higham §3.5, and
// 1e-8 the threshold of update's orthonormality probe, far above the 1e-15 of LAPACK's
// backward-stable pairs), WᵀW = I entry by entry within 1e-8, and a centred model's shift
// c = the mean over the landmarks of K_LL·F within 1e-9 of the mean of |K_LL|·|F|. The
// sums of the points' features are not checked beyond checkSums: the points are not
// stored. It costs K_LL and K_LL·F, O(r²·(d + p)), as New does.
func (md *Model) verifyMap() error {
	r, p := md.r, md.p
	full := mat.NewDense(r, r, nil)
	full.Copy(kernel.Matrix(md.kern, md.land))
	if !vec.Finite(full.RawMatrix().Data) {
		return fmt.Errorf("%w: a kernel value of the landmarks is not finite", ErrEncoding)
	}
	absK := mat.NewDense(r, r, nil)
	absK.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, full)
	var maxS float64 // the largest row sum of |K_LL|, ≥ ‖|K_LL|‖₂
	for i := range r {
		var s float64
		for _, v := range absK.RawRowView(i) {
			s += v
		}
		maxS = math.Max(maxS, s)
	}
	F := mat.NewDense(r, p, md.f)
	var KF, FF mat.Dense
	native.Mul(&KF, full, F)
	native.Mul(&FF, F.T(), F)
	beta := 1e-8*md.sigma[0] + 4*float64(r)*0x1p-53*maxS
	for j := range p {
		var res, norm float64
		for i := range r {
			e := KF.At(i, j) - md.sigma[j]*F.At(i, j)
			res += e * e
			norm += F.At(i, j) * F.At(i, j)
		}
		// ‖K·wⱼ − σⱼ·wⱼ‖ = √σⱼ·‖K·fⱼ − σⱼ·fⱼ‖, against β·‖wⱼ‖ = β·√σⱼ·‖fⱼ‖.
		if !(math.Sqrt(res) <= beta*math.Sqrt(norm)) {
			return fmt.Errorf("%w: feature %d is not an eigenvector of the landmarks' kernel matrix (residual %.3g, eigenvalue %g)",
				ErrEncoding, j, math.Sqrt(res*md.sigma[j]), md.sigma[j])
		}
		for q := range p {
			want := 0.0
			if q == j {
				want = 1
			}
			if g := math.Sqrt(md.sigma[j]*md.sigma[q]) * FF.At(j, q); !(math.Abs(g-want) <= 1e-8) {
				return fmt.Errorf("%w: the landmarks' eigenvectors %d and %d have the product %g", ErrEncoding, j, q, g)
			}
		}
	}
	if md.opts.Uncentred {
		return nil
	}
	var absKF mat.Dense
	absF := mat.NewDense(r, p, nil)
	absF.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, F)
	native.Mul(&absKF, absK, absF)
	for j := range p {
		var c, scale float64
		for i := range r {
			c += KF.At(i, j)
			scale += absKF.At(i, j)
		}
		c /= float64(r)
		if !(math.Abs(c-md.shift[j]) <= 1e-9*scale/float64(r)) {
			return fmt.Errorf("%w: shift %d is %g, the landmarks' mean feature %g", ErrEncoding, j, md.shift[j], c)
		}
	}
	return nil
}

// checkSums reports sums that no set of points gives (ErrEncoding): non-zero sums
// without points, a half of a sum beyond 2¹⁰⁰¹, a negative or too large sum of
// squares, or a sum or an off-diagonal sum of products beyond Cauchy–Schwarz's bound by
// more than rounding (a relative 1e-9, and an absolute 2⁻⁵⁰⁰ per point for squares that
// underflowed).
func (md *Model) checkSums() error { return checkSums(md.p, md.n, md.sum, md.sq) }

// checkSums is Model.checkSums for the sums of n points' p features, those of a Model
// or of a Sums.
func checkSums(p, points int, sum vecSum, sq triSum) error {
	n := float64(points)
	if points == 0 {
		for _, s := range [][]float64{sum.hi, sum.lo, sq.hi, sq.lo} {
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
	for _, s := range [][]float64{sum.hi, sum.lo, sq.hi, sq.lo} {
		for i, v := range s {
			if !(math.Abs(v) <= 2*sumLimit) {
				return fmt.Errorf("%w: a sum's entry %d is %g", ErrEncoding, i, v)
			}
		}
	}
	diag := make([]float64, p)
	for i := range p {
		diag[i] = sq.at(i, i)
		if !(diag[i] >= 0 && sq.hi[i*p+i] <= sumLimit && diag[i] <= sumLimit) {
			return fmt.Errorf("%w: sum of squares %d is %g", ErrEncoding, i, diag[i])
		}
	}
	const rel, tiny = 1 + 1e-9, 0x1p-500
	for i := range p {
		if s := sum.hi[i] + sum.lo[i]; !(math.Abs(s) <= math.Sqrt(n*diag[i])*rel+n*tiny) {
			return fmt.Errorf("%w: sum %d is %g, its sum of squares %g over %d points", ErrEncoding, i, s, diag[i], points)
		}
		for j := i + 1; j < p; j++ {
			if s := sq.at(i, j); !(math.Abs(s) <= math.Sqrt(diag[i])*math.Sqrt(diag[j])*rel+1e-10*(diag[i]+diag[j])+n*tiny) {
				return fmt.Errorf("%w: sum of products (%d, %d) is %g, beyond its sums of squares %g and %g", ErrEncoding, i, j, s, diag[i], diag[j])
			}
		}
	}
	return nil
}
