package chinsuter

import (
	"fmt"
	"io"
	"math"

	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// Encoding, version 2: the frame of package internal/wire (magic "IKPCACHS", the
// version, the body's length, the body, a SHA-256 of everything before it) around the
// body below, all integers and floats little-endian (docs/design.md, "Chin–Suter
// encoding"):
//
//	kernel       the kernel's Spec in the layout of internal/kernelwire: uint32 name
//	             length (≤ 255), the name, float64 σ, float64 γ, int64 degree, float64 c
//	options      uint64 Components; uint8 1 if compressed, else 0; uint64 PreImages,
//	             uint64 MaxIter, float64 Tol (all zero without compression)
//	sizes        uint64 d (dimension), n (points seen), N (expansion points),
//	             r (components)
//	trace        float64, Σ k(x, x) over the points seen
//	stats        uint64 NewDirections; uint8 1 if the last update compressed, else 0;
//	             float64 ResidualComponents, ResidualMean, Orthogonality
//	points       N·d float64, the expansion points A, row-major
//	kernel       N(N+1)/2 float64, the upper triangle of K_A row by row
//	coefficients N·r float64, α, row-major (as kept, before the signs of VectorsTo)
//	values       r float64, the singular values Σ, descending
//	mean         N float64, ν
//
// Floats are stored bit for bit — K_A too, rather than recomputed: its entries come from
// the model's kernel, or after a compression from the RBF of the pre-images, whose σ
// may differ from a kernel given by γ in the last bits — so that a decoded model reads
// and grows exactly as the encoded one. The compressed form is encoded the same way: its
// expansion points are the pre-images. The remaining Stats (Points, Expansion,
// Components, PreImages) are n, N, r and N or 0, and are not stored. Version 1 (the
// kernel's degree before γ) is not read.
const (
	encodingMagic   = "IKPCACHS"
	encodingVersion = 2
	// headerFixed is the length of the body after the kernel's Spec and before the
	// floats: the options, the sizes, the trace and the stats.
	headerFixed = 8 + 1 + 3*8 + 4*8 + 8 + 8 + 1 + 3*8
)

// bodyLength returns the length of the body of md's encoding after the kernel's Spec.
func (md *Model) bodyLength() int {
	N, d, r := md.pts.r, md.d, len(md.sv)
	return headerFixed + 8*(N*d+N*(N+1)/2+N*r+r+N)
}

// format is the encoding's frame, its name in errors and its error kinds.
var format = wire.Format{Magic: encodingMagic, Version: encodingVersion, What: "Chin–Suter model",
	Argument: ErrArgument, Encoding: ErrEncoding}

// body returns the body of md's encoding, its length and its writer. A zero Model, or a
// kernel that cannot be encoded (kernelwire.Of), is an ErrArgument.
func (md *Model) body() (wire.Body, error) {
	if md.kern == nil {
		return wire.Body{}, errZero
	}
	N, r := md.pts.r, len(md.sv)
	return kernelwire.Body(md.kern, ErrArgument, wire.Body{Len: uint64(md.bodyLength()), Write: func(f *wire.Fields) {
		f.U64(uint64(md.opts.Components))
		var c Compression
		if md.opts.Compression != nil {
			c = *md.opts.Compression
		}
		f.Bool(md.opts.Compression != nil)
		f.U64(uint64(c.PreImages))
		f.U64(uint64(c.MaxIter))
		f.F64(c.Tol)
		f.U64(uint64(md.d))
		f.U64(uint64(md.n))
		f.U64(uint64(N))
		f.U64(uint64(r))
		f.F64(md.trace)
		st := md.stats
		f.U64(uint64(st.NewDirections))
		f.Bool(st.Compressed)
		f.F64(st.ResidualComponents, st.ResidualMean, st.Orthogonality)
		f.F64(md.pts.a...)
		for i := range N {
			f.F64(md.ka.row(i)[i:]...)
		}
		f.F64(md.alpha.a...)
		f.F64(md.sv...)
		f.F64(md.nu...)
	}})
}

// MarshalBinary encodes the model — kernel, options, expansion points, their kernel
// matrix, coefficients, singular values and mean — in the format above: N·d + N²/2 +
// N·(r + 1) numbers for an expansion of N points, every point seen in the exact form
// and at most (r+1)·n′ pre-images compressed. It implements encoding.BinaryMarshaler
// and leaves the model unchanged. The kernel must describe itself (kernel.Specified:
// every built-in kernel and kernel.Func, with a name of at most 255 bytes of UTF-8;
// ErrArgument otherwise); a Func's function is not encoded, only its name, and
// UnmarshalBinary finds it again in the kernel registry (kernel.Register). A zero Model
// is an ErrArgument.
func (md *Model) MarshalBinary() ([]byte, error) { return format.Marshal(md.body) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w — the exact form's
// kernel matrix is never copied whole — with the errors of ikpca.Persistent.
func (md *Model) MarshalBinaryTo(w io.Writer) (int, error) { return format.MarshalTo(w, md.body) }

// UnmarshalBinary replaces md — a zero Model or any other — by the model encoded in
// data (by MarshalBinary or MarshalBinaryTo), by the rules of ikpca.Persistent: the
// kernel is rebuilt by kernel.New from its Spec, and data that is not an encoded model,
// or checksummed data describing a model that cannot exist or cannot be rebuilt here,
// is an ErrEncoding. Every size is checked against the length of the data before
// anything is allocated, and no byte may be left over; every number
// must be finite; the kernel and the options must be valid as Fit checks them, and a
// Func registered; the expansion must be every point seen (n = N) in the exact form and
// at most (r+1)·n′ points compressed, with r ≤ N components, at most Components; the
// singular values must be positive and descending, their squares finite and positive; the stored
// kernel matrix must be the kernel's of the stored points to a relative 1e-10 (its own
// values, or those of the pre-images' RBF kernel, differ by a few ulps at most), and in
// the exact form the trace its diagonal's sum; the axes must be orthonormal enough to
// describe the data's covariance, ‖Σ(αᵀKα − I)Σ‖₂ ≤ ½·σ₁² (rounding leaves it below
// 1e-9·σ₁², docs/design.md, "Chin–Suter encoding"); in the exact form the mean's
// coefficients must be 1/n, to 1e-9 relative; and the stats must be those of such
// a model. The checks cost N² kernel values and O(N²·r) flops. On error md is
// unchanged.
func (md *Model) UnmarshalBinary(data []byte) error {
	return kernelwire.Unmarshal(format, md, data, headerFixed, decode)
}

// UnmarshalBinaryFrom restores md from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (md *Model) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return format.UnmarshalFrom(r, md.UnmarshalBinary)
}

// maxCount bounds n, the points seen, so that it converts to float64 exactly.
const maxCount = 1 << 53

// decode reads the body of an encoded model after its kernel k: the header (of
// headerFixed bytes, there), then the rest, checked as it is read.
func decode(k kernel.Kernel, dec *wire.Reader) (*Model, error) {
	components := dec.U64()
	compressed := dec.U8()
	preImages, maxIter, tol := dec.U64(), dec.U64(), dec.F64()
	d64, n64, N64, r64 := dec.U64(), dec.U64(), dec.U64(), dec.U64()
	trace := dec.F64()
	newDirections := dec.U64()
	lastCompressed := dec.U8()
	resComp, resMean, orth := dec.F64(), dec.F64(), dec.F64()

	// The header: small integers, flags of 0 or 1, finite numbers.
	const small = 1 << 31
	if newDirections >= small || lastCompressed > 1 {
		return nil, fmt.Errorf("%w: options or stats out of range", ErrEncoding)
	}
	for _, v := range []float64{trace, resComp, resMean, orth} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: a number of the header is %g", ErrEncoding, v)
		}
	}
	opts, err := decodeOptions(components, compressed, preImages, maxIter, tol)
	if err != nil {
		return nil, err
	}
	md, err := newModel(k, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoding, err)
	}

	d, n, N, r, err := decodeSizes(dec.Len(), d64, n64, N64, r64)
	if err != nil {
		return nil, err
	}
	if err := checkCounts(md, n, N, r); err != nil {
		return nil, err
	}

	fields, err := dec.Arrays(ErrEncoding, wire.Array{What: "expansion points", Len: N * d},
		wire.Array{What: "kernel matrix", Len: N * (N + 1) / 2}, wire.Array{What: "coefficients", Len: N * r},
		wire.Array{What: "singular values", Len: r}, wire.Array{What: "mean", Len: N})
	if err != nil {
		return nil, err
	}
	pts, ka := dense{r: N, c: d, a: fields[0]}, unpackUpper(N, fields[1])
	alpha, sv, nu := dense{r: N, c: r, a: fields[2]}, fields[3], fields[4]
	if err := checkSingularValues(sv); err != nil {
		return nil, err
	}
	md.d, md.n, md.trace = d, n, trace
	if err := checkKernelMatrix(md, pts, ka); err != nil {
		return nil, err
	}
	if opts.Compression == nil {
		if err := checkExactForm(ka, nu, n, trace); err != nil {
			return nil, err
		}
	}
	if r > 0 {
		if err := checkAxes(alpha, ka, sv); err != nil {
			return nil, err
		}
	}
	md.stats = Stats{Points: n, Expansion: N, Components: r, NewDirections: int(newDirections), Compressed: lastCompressed == 1,
		ResidualComponents: resComp, ResidualMean: resMean, Orthogonality: orth}
	if err := checkStats(md.stats, opts.Compression != nil); err != nil {
		return nil, err
	}
	if md.stats.Compressed {
		md.stats.PreImages = N
	}
	md.commit(pts, ka, alpha, sv, nu)
	return md, nil
}

// checkCounts checks the counts a decoded model md declares against its options: n
// points seen, N in the expansion and r components.
func checkCounts(md *Model, n, N, r int) error {
	switch {
	case (n == 0) != (N == 0):
		return fmt.Errorf("%w: %d points seen and %d in the expansion", ErrEncoding, n, N)
	case md.opts.Compression == nil && N != n:
		return fmt.Errorf("%w: an exact model of %d points with %d in its expansion", ErrEncoding, n, N)
	case md.opts.Compression != nil && N > md.budget():
		return fmt.Errorf("%w: %d expansion points, beyond the (r+1)·n′ = %d of a compressed model", ErrEncoding, N, md.budget())
	case md.opts.Components > 0 && r > md.opts.Components:
		return fmt.Errorf("%w: %d components, beyond the cap %d", ErrEncoding, r, md.opts.Components)
	}
	return nil
}

// checkSingularValues checks the decoded singular values sv: positive, descending, and
// their squares finite and positive, the eigenvalues Values reports (a singular value
// below about 2⁻⁵³⁷ squares to zero).
func checkSingularValues(sv []float64) error {
	for j, s := range sv {
		if !(s > 0) || j > 0 && !(s <= sv[j-1]) || math.IsInf(s*s, 0) || !(s*s > 0) {
			return fmt.Errorf("%w: singular value %d is %g", ErrEncoding, j, s)
		}
	}
	return nil
}

// decodeSizes returns the sizes d, n, N and r of an encoding whose arrays hold length
// bytes, bounded by the data present before computing with them: N·d and N·(N+1)/2 at
// most the number of floats (and N·r ≤ N² at most twice it), so that their sum cannot
// overflow and nothing is allocated for data that is not there.
func decodeSizes(length int, d64, n64, N64, r64 uint64) (d, n, N, r int, err error) {
	have := uint64(length / 8)
	if d64 < 1 || n64 > maxCount || N64 > have || r64 > N64 || N64 > 0 && (d64 > have/N64 || N64+1 > 2*have/N64) {
		return 0, 0, 0, 0, fmt.Errorf("%w: sizes d = %d, n = %d, N = %d, r = %d for %d bytes of data", ErrEncoding, d64, n64, N64, r64, length)
	}
	d, n, N, r = int(d64), int(n64), int(N64), int(r64)
	if want := N*d + N*(N+1)/2 + N*r + r + N; length%8 != 0 || int(have) != want {
		return 0, 0, 0, 0, fmt.Errorf("%w: %d bytes of data, want %d", ErrEncoding, length, 8*want)
	}
	return d, n, N, r, nil
}

// decodeOptions returns the options an encoding's header gives: small integers, a flag
// of 0 or 1, a finite tolerance, and no compression settings without compression.
func decodeOptions(components uint64, compressed uint8, preImages, maxIter uint64, tol float64) (Options, error) {
	const small = 1 << 31
	if components >= small || preImages >= small || maxIter >= small || compressed > 1 {
		return Options{}, fmt.Errorf("%w: options or stats out of range", ErrEncoding)
	}
	if math.IsNaN(tol) || math.IsInf(tol, 0) {
		return Options{}, fmt.Errorf("%w: a number of the header is %g", ErrEncoding, tol)
	}
	opts := Options{Components: int(components)}
	if compressed == 1 {
		opts.Compression = &Compression{PreImages: int(preImages), MaxIter: int(maxIter), Tol: tol}
	} else if preImages != 0 || maxIter != 0 || math.Float64bits(tol) != 0 {
		return Options{}, fmt.Errorf("%w: compression settings without compression", ErrEncoding)
	}
	return opts, nil
}

// checkStats checks that an update can leave the stats st (before PreImages is set) in
// a model, compressed or not: a compression's residuals only after a compression, none
// negative, and no more new directions than points.
func checkStats(st Stats, compressed bool) error {
	if st.Compressed && !compressed || !st.Compressed && (st.ResidualComponents != 0 || st.ResidualMean != 0 || st.Orthogonality != 0) ||
		st.ResidualComponents < 0 || st.ResidualMean < 0 || st.Orthogonality < 0 || st.NewDirections > st.Points {
		return fmt.Errorf("%w: stats of the last update that no update gives", ErrEncoding)
	}
	return nil
}

// unpackUpper returns the symmetric N×N matrix whose upper triangle tri holds, row by
// row.
func unpackUpper(N int, tri []float64) dense {
	ka := newDense(N, N)
	for i := range N {
		copy(ka.row(i)[i:], tri[:N-i])
		for j := i + 1; j < N; j++ {
			ka.set(j, i, ka.at(i, j))
		}
		tri = tri[N-i:]
	}
	return ka
}

// checkExactForm checks what an exact model's state must be, given its kernel matrix
// ka: the trace the sum of its diagonal, and the mean's coefficients 1/n.
func checkExactForm(ka dense, nu []float64, n int, trace float64) error {
	// The exact form's trace is the sum of its points' k(x, x), added in order.
	var sum, abs float64
	for i := range ka.r {
		sum += ka.at(i, i)
		abs += math.Abs(ka.at(i, i))
	}
	if !(math.Abs(trace-sum) <= float64(ka.r)*0x1p-52*abs) {
		return fmt.Errorf("%w: trace %g of points whose k(x, x) sum to %g", ErrEncoding, trace, sum)
	}
	// The exact form's mean is that of every point seen: each νᵢ is 1/n, kept by
	// the updates as n·νᵢ/(n + c), one rounding a chunk; 1e-9 relative admits
	// millions of chunks' worst case (Higham §3.1) and nothing a forged mean needs.
	for i, v := range nu {
		if !(math.Abs(v*float64(n)-1) <= 1e-9) {
			return fmt.Errorf("%w: the mean's coefficient %d is %g, not 1/n = %g", ErrEncoding, i, v, 1/float64(n))
		}
	}
	return nil
}

// checkAxes checks that the axes α (over the points of kernel matrix ka) and their
// singular values sv describe a covariance (docs/design.md, "Chin–Suter encoding").
func checkAxes(alpha, ka dense, sv []float64) error {
	// The axes and singular values describe the data's covariance UΣ²Uᵀ: with
	// E = Σ(αᵀKα − I)Σ, the error of that description from the axes' departure from
	// orthonormality, ‖E‖₂ ≤ ½·σ₁². Rounding leaves it below 1e-9·σ₁² (measured on
	// exact, truncated and chunked streams of up to 1500 points; docs/design.md,
	// "Chin–Suter encoding"), where the unweighted ‖αᵀKα − I‖₂ reaches 3e-4 along
	// the smallest components; axes scaled or replaced are far beyond. The Gram
	// matrix is checked finite first: the eigensolver is given finite input only.
	g := mul(alpha, true, mul(ka, false, alpha, false), false)
	if !finite(g.a) {
		return fmt.Errorf("%w: the axes' Gram matrix αᵀKα is not finite", ErrEncoding)
	}
	for i := range alpha.c {
		g.set(i, i, g.at(i, i)-1)
		for j := range alpha.c {
			g.set(i, j, g.at(i, j)*sv[i]*sv[j])
		}
	}
	symmetrise(g)
	if !finite(g.a) {
		return fmt.Errorf("%w: the axes' Gram matrix αᵀKα is not finite", ErrEncoding)
	}
	o, err := spectralNormSym(g)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	if !(o <= 0.5*sv[0]*sv[0]) {
		return fmt.Errorf("%w: the axes are not orthonormal (‖Σ(αᵀKα − I)Σ‖₂ = %g of σ₁² = %g)", ErrEncoding, o, sv[0]*sv[0])
	}
	return nil
}

// checkKernelMatrix reports a stored kernel matrix that is not the kernel's of the
// stored points (ErrEncoding): each entry within 1e-10·(|k(aᵢ, aⱼ)| + √|k(aᵢ, aᵢ)·k(aⱼ, aⱼ)|)
// of the kernel's own value, plus the smallest normal number. The entries a model
// stores are its kernel's values, bit for bit, or, after a compression, those of the
// pre-images' RBF kernel of σ = 1/√(2γ) for a kernel given by γ, which differ by a few
// ulps of the exponent; the bound is far above either, and far below what a wrong point
// or value gives.
func checkKernelMatrix(md *Model, pts, ka dense) error {
	N := pts.r
	diag := make([]float64, N)
	for i := range N {
		diag[i] = md.kern.Eval(pts.row(i), pts.row(i))
	}
	for i := range N {
		for j := i; j < N; j++ {
			v := md.kern.Eval(pts.row(i), pts.row(j))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: the kernel value of expansion points %d and %d is %g", ErrEncoding, i, j, v)
			}
			if !(math.Abs(ka.at(i, j)-v) <= 1e-10*(math.Abs(v)+math.Sqrt(math.Abs(diag[i]*diag[j])))+0x1p-1022) {
				return fmt.Errorf("%w: kernel matrix entry (%d, %d) is %g, the kernel's %g", ErrEncoding, i, j, ka.at(i, j), v)
			}
		}
	}
	return nil
}
