package stream

import (
	"fmt"
	"io"
	"math"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// Encodings of KRQA and KHA: the frame of every encoding of the module (magic
// "IKPCAKRQ" or "IKPCAKHA", version 1; internal/wire) around the body, integers and
// floats little-endian:
//
//	kernel   the kernel's Spec (internal/kernelwire): name and parameters; a
//	         kernel.Func by its name, rebuilt from the registry (kernel.Register)
//	dim      uint64  d, the points' dimension
//	options  KRQA: uint64 Components, uint64 Seed, uint8 Uncentred (KRQAOptions);
//	         KHA: uint64 Components, float64 Rate, float64 Decay, uint64 Seed,
//	         uint8 Uncentred (KHAOptions)
//	state    uint64 n (samples stored), uint8 started, uint64 t (presentations)
//	samples  n·d float64, row-major, oldest first
//	sums     n float64, the kernel matrix's row sums K·1; float64 its total 1ᵀK1
//	started  KRQA: for each component i, α_i (n float64) and K·α_i (n float64); then
//	         1ᵀα (r float64), 1ᵀKα (r float64) and the estimates Q (r float64).
//	         KHA: for each component i, α_i (n float64).
//	         Nothing before the iteration starts.
//
// Everything the iteration reads is stored bit for bit, so that a restored model
// continues exactly as the saved one would: the running sums as they were summed, not
// recomputed. The random initial directions are drawn from a PCG seeded by Seed
// afresh at each start (KRQA.start, KHA.start), so the seed is the whole of the
// generators' state — before the start, the directions the model will draw; after it,
// nothing more is drawn.
const (
	krqaMagic     = "IKPCAKRQ"
	khaMagic      = "IKPCAKHA"
	onlineVersion = 1
)

// krqaFormat and khaFormat are the encodings' frames, names in errors and error kinds.
var (
	krqaFormat = encodingFormat(krqaMagic, onlineVersion, "KRQA model")
	khaFormat  = encodingFormat(khaMagic, onlineVersion, "KHA model")
)

// onlineHead is what the bodies of KRQA and KHA hold between the kernel's Spec and the
// samples: the dimension and the options, KHA's rate and decay (rated) between the
// number of components and the seed.
type onlineHead struct {
	d, r        int
	rated       bool
	rate, decay float64
	seed        uint64
	uncentred   bool
}

func (h onlineHead) write(f *wire.Fields) {
	f.U64(uint64(h.d))
	f.U64(uint64(h.r))
	if h.rated {
		f.F64(h.rate, h.decay)
	}
	f.U64(h.seed)
	f.Bool(h.uncentred)
}

// onlineHead reads a head (a KHA's if rated). The options are the constructor's to
// judge: the rate and decay are read as they are.
func (dec *decoder) onlineHead(rated bool) onlineHead {
	h := onlineHead{rated: rated}
	h.d = dec.size("the dimension", check.MaxFloats)
	h.r = dec.size("the number of components", maxCount)
	if rated {
		h.rate, h.decay = dec.rawF64("the rate"), dec.rawF64("the decay")
	}
	h.seed = dec.u64("the seed")
	h.uncentred = dec.bool("Uncentred")
	return h
}

// body writes the samples' part of a body: the state, the points and the sums.
func (s *samples) body(f *wire.Fields, ready bool, t int) {
	f.U64(uint64(s.n))
	f.Bool(ready)
	f.U64(uint64(t))
	f.F64(s.x[:s.n*s.d]...)
	f.F64(s.rowsum[:s.n]...)
	f.F64(s.total)
}

// samples reads the samples' part of a body into s (newSamples'), and returns whether
// the iteration had started and the presentations made. Every size is checked against
// the bytes left before anything is allocated.
func (dec *decoder) samples(s *samples) (ready bool, t int) {
	n := dec.size("the number of samples", maxCount)
	ready = dec.bool("started")
	t = dec.size("the presentations", maxCount)
	if dec.err != nil {
		return false, 0
	}
	// n·d + n + 1 floats follow at least; checked before n·d is formed.
	if uint64(n) > uint64(dec.r.Len())/8/uint64(s.d+1) {
		dec.fail("%d samples of dimension %d in %d bytes", n, s.d, dec.r.Len())
		return false, 0
	}
	x := dec.floats(n*s.d, "the samples")
	rowsum := dec.floats(n, "the kernel's row sums")
	total := dec.f64("the kernel's total")
	if dec.err != nil {
		return false, 0
	}
	s.x, s.n, s.rowsum, s.total = x, n, rowsum, total
	if n > 0 {
		s.view.SetRawMatrix(rawOf(s.x, n, s.d))
	}
	if err := s.checkSums(); err != nil {
		dec.err = err
	}
	return ready, t
}

// checkSums reports stored samples and sums that no model holds (ErrEncoding): a sample
// whose kernel value with itself is not finite (Add refuses it), or row sums and a
// total beyond what a positive semi-definite kernel gives — |k(x, y)| ≤ √(k(x, x)·k(y, y))
// (Cauchy–Schwarz), so |rₗ| ≤ √kₗₗ·Σᵢ√kᵢᵢ and |1ᵀK1| ≤ (Σᵢ√kᵢᵢ)² — by more than
// rounding: a relative 1e-4 (the sums of n kernel values err by about n·ε of their
// magnitudes), and an absolute n·2⁻¹⁰⁰⁰ for values that underflowed. The sigmoid kernel
// is not positive semi-definite, and Cauchy–Schwarz does not hold for it (its k(x, x)
// may be 0 or negative while k(x, y) is not): |k| ≤ 1 bounds it instead, 1 in place of
// each √kᵢᵢ. It evaluates the kernel n times, O(n·d), far less than a pass.
func (s *samples) checkSums() error {
	diag := make([]float64, s.n)
	var root float64
	var bounded bool // |k| ≤ 1, and no Cauchy–Schwarz: the sigmoid
	switch s.kern.(type) {
	case kernel.Sigmoid, *kernel.Sigmoid:
		bounded = true
	}
	for i := range s.n {
		x := s.x[i*s.d : (i+1)*s.d]
		v := s.kern.Eval(x, x)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: the kernel value of sample %d with itself is %g", ErrEncoding, i, v)
		}
		diag[i] = math.Sqrt(math.Abs(v))
		if bounded {
			diag[i] = 1
		}
		root += diag[i]
	}
	tiny := float64(s.n) * 0x1p-1000
	for l, r := range s.rowsum {
		if !(math.Abs(r) <= (1+1e-4)*diag[l]*root+tiny) {
			return fmt.Errorf("%w: row sum %d of the kernel matrix is %g, beyond √k·Σ√k = %g (n for the sigmoid)", ErrEncoding, l, r, diag[l]*root)
		}
	}
	if !(math.Abs(s.total) <= (1+1e-4)*root*root+tiny) {
		return fmt.Errorf("%w: the kernel matrix's total is %g, beyond (Σ√k)² = %g (n² for the sigmoid)", ErrEncoding, s.total, root*root)
	}
	return nil
}

// checkState reports an iteration state no model reaches (ErrEncoding): started with
// fewer than need samples, or presentations made before the start.
func checkState(ready bool, n, need, t int) error {
	switch {
	case ready && n < need:
		return fmt.Errorf("%w: the iteration started with %d samples; it needs %d", ErrEncoding, n, need)
	case !ready && t != 0:
		return fmt.Errorf("%w: %d presentations before the iteration started", ErrEncoding, t)
	}
	return nil
}

// need returns the samples an online iteration of r components starts with: r+1
// centred (the centred samples span r dimensions at most), r uncentred.
func need(r int, uncentred bool) int {
	if uncentred {
		return r
	}
	return r + 1
}

// online is a KRQA or a KHA, as their encodings see them.
type online interface {
	// stored returns the model's samples (nil in a zero model).
	stored() *samples
	// componentFloats returns the floats a started model holds per component, for n
	// samples.
	componentFloats(n int) int
	// readStarted reads the state of a started model of n samples after t
	// presentations (dec.floats), and checks it.
	readStarted(dec *decoder, n, t int)
	// products returns the coefficients α and the products K·α a started model stores
	// for its samples to check (samples.verify): a KRQA's, nil for a KHA, which stores
	// no products.
	products() (alpha, p [][]float64)
}

// encodeOnline returns the body of the encoding of m, a KRQA or a KHA (name), whose
// fields after the kernel's Spec write writes; a zero model, or a kernel that cannot be
// encoded, is an ErrArgument.
func encodeOnline(m online, name string, write func(*wire.Fields)) (wire.Body, error) {
	if m.stored() == nil {
		return wire.Body{}, zeroModel(name)
	}
	return withKernel(m.stored().kern, write)
}

// decodeOnline decodes the body of a KRQA's or a KHA's encoding after its kernel: the
// head (rated: a KHA's), from which build makes the model (NewKRQA, NewKHA; a refusal is
// an ErrEncoding); then the samples and the iteration's state, which must be one a model
// reaches (checkState); and once started, r components of componentFloats(n) floats
// each for n samples — room for them in the bytes left is checked before any is
// allocated — which the model reads (readStarted). Every error is an ErrEncoding.
func decodeOnline[M online](body *wire.Reader, rated bool, build func(onlineHead) (M, error)) (M, error) {
	var zero M
	dec := newDecoder(body)
	h := dec.onlineHead(rated)
	if dec.err != nil {
		return zero, dec.err
	}
	m, err := build(h)
	if err != nil {
		return zero, fmt.Errorf("%w: %s", ErrEncoding, err)
	}
	s := m.stored()
	ready, t := dec.samples(s)
	if dec.err != nil {
		return zero, dec.err
	}
	if err := checkState(ready, s.n, need(h.r, h.uncentred), t); err != nil {
		return zero, err
	}
	if ready {
		if uint64(h.r) > uint64(dec.r.Len())/8/uint64(max(m.componentFloats(s.n), 1)) {
			return zero, fmt.Errorf("%w: %d components over %d samples in %d bytes", ErrEncoding, h.r, s.n, dec.r.Len())
		}
		m.readStarted(dec, s.n, t)
	}
	if err := dec.end(); err != nil {
		return zero, err
	}
	alpha, p := m.products()
	if err := s.verify(alpha, p); err != nil {
		return zero, err
	}
	return m, nil
}

// verify checks that the stored sums belong to the samples (docs/design.md, "Streaming
// encodings"): the row sums K·1 and the total 1ᵀK1 and, for a started KRQA, each
// component's products p = K·α, recomputed from the samples a kernel column at a
// time, within check.SumsTolerance of the sums of the magnitudes of their terms. A forged
// sample, row sum or product that passes moves the centring, and the scores, by at most
// that. It costs n kernel columns, O(n²·d), and O(n²·r) for the products: one kernel
// matrix–vector pass, as every Add of these models makes.
func (s *samples) verify(alpha, p [][]float64) error {
	n := s.n
	if n == 0 {
		return nil
	}
	var total, totalAbs float64
	for l := range n {
		col := s.column(l)
		r, abs := vec.Sums(col[:n])
		if !(math.Abs(r-s.rowsum[l]) <= check.SumsTolerance*abs) {
			return fmt.Errorf("%w: row sum %d of the kernel matrix is %g, the samples give %g", ErrEncoding, l, s.rowsum[l], r)
		}
		total += r
		totalAbs += abs
		for i := range p {
			var kp, kpAbs float64
			for j, v := range col[:n] {
				kp += v * alpha[i][j]
				kpAbs += math.Abs(v * alpha[i][j])
			}
			if !(math.Abs(kp-p[i][l]) <= check.SumsTolerance*kpAbs) {
				return fmt.Errorf("%w: component %d's product K·α is %g at sample %d, the samples give %g", ErrEncoding, i, p[i][l], l, kp)
			}
		}
	}
	if !(math.Abs(total-s.total) <= check.SumsTolerance*totalAbs) {
		return fmt.Errorf("%w: the kernel matrix's total is %g, the samples give %g", ErrEncoding, s.total, total)
	}
	return nil
}

// componentFloats: α_i and K·α_i (n each), and the component's 1ᵀα, 1ᵀKα and Q.
func (m *KRQA) componentFloats(n int) int { return 2*n + 3 }

func (m *KRQA) readStarted(dec *decoder, n, t int) {
	for i := range m.r {
		m.alpha[i] = dec.floats(n, "the coefficients")
		m.p[i] = dec.floats(n, "the kernel products")
	}
	m.sb = dec.floats(m.r, "the coefficients' sums")
	m.sp = dec.floats(m.r, "the products' sums")
	m.q = dec.floats(m.r, "the eigenvalue estimates")
	if dec.err != nil {
		return
	}
	// The sums 1ᵀα and 1ᵀKα of the stored vectors (their products K·α are checked
	// against the samples by samples.verify).
	for i := range m.r {
		var a, aAbs, q, qAbs float64
		for l := range n {
			a += m.alpha[i][l]
			aAbs += math.Abs(m.alpha[i][l])
			q += m.p[i][l]
			qAbs += math.Abs(m.p[i][l])
		}
		if !(math.Abs(a-m.sb[i]) <= check.SumsTolerance*aAbs && math.Abs(q-m.sp[i]) <= check.SumsTolerance*qAbs) {
			dec.fail("component %d's sums 1ᵀα = %g and 1ᵀKα = %g, its vectors give %g and %g", i, m.sb[i], m.sp[i], a, q)
			return
		}
	}
	// Q is an average of squares, and Values reports n·Q.
	for i, v := range m.q {
		if v < 0 || math.IsInf(float64(n)*v, 0) {
			dec.fail("eigenvalue estimate %d is %g, of %d samples", i, v, n)
		}
	}
	m.ready, m.t = true, t
}

// products: a started KRQA's coefficients and their products K·α.
func (m *KRQA) products() (alpha, p [][]float64) {
	if !m.ready {
		return nil, nil
	}
	return m.alpha, m.p
}

func (m *KRQA) body(f *wire.Fields) {
	o := m.opts
	onlineHead{d: m.s.d, r: o.Components, seed: o.Seed, uncentred: o.Uncentred}.write(f)
	m.s.body(f, m.ready, m.t)
	if !m.ready {
		return
	}
	for i := range m.r {
		f.F64(m.alpha[i]...)
		f.F64(m.p[i]...)
	}
	f.F64(m.sb...)
	f.F64(m.sp...)
	f.F64(m.q...)
}

// encode returns the body of m's encoding; a zero KRQA, or a kernel that cannot be
// encoded (not a kernel.Specified), is an ErrArgument.
func (m *KRQA) encode() (wire.Body, error) { return encodeOnline(m, "KRQA", m.body) }

// MarshalBinary encodes the model — its kernel, options, samples, sums and iteration
// state — in the format above: n·(d + 2r + 1) + O(r) numbers. It implements
// encoding.BinaryMarshaler and leaves the model unchanged. A kernel that does not
// describe itself (kernel.Specified: every built-in kernel and kernel.Func do), or a
// zero KRQA, is an ErrArgument.
func (m *KRQA) MarshalBinary() ([]byte, error) { return krqaFormat.Marshal(m.encode) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time,
// with the errors of ikpca.Persistent.
func (m *KRQA) MarshalBinaryTo(w io.Writer) (int, error) { return krqaFormat.MarshalTo(w, m.encode) }

// UnmarshalBinaryFrom restores m from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (m *KRQA) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return krqaFormat.UnmarshalFrom(r, m.UnmarshalBinary)
}

// UnmarshalBinary replaces m by the model encoded in data (by MarshalBinary); a zero KRQA
// may receive it. It implements encoding.BinaryUnmarshaler. The kernel is rebuilt from
// its Spec (kernel.New): a kernel.Func must have been registered under its name
// (kernel.Register). Data that is not an encoded model, of another version, truncated,
// corrupted or with bytes left over, a kernel that cannot be rebuilt or is not as it
// describes itself, options NewKRQA refuses, sizes beyond the bytes present (checked
// before anything is allocated), a number that is not finite, a negative eigenvalue
// estimate, an iteration state no model reaches (started with fewer samples than
// it needs, presentations before the start), or sums that are not those of the samples
// and coefficients (K·1, 1ᵀK1, K·α, 1ᵀα, 1ᵀKα, recomputed in O(n²·d))
// gives an error wrapping ErrEncoding and leaves m unchanged.
func (m *KRQA) UnmarshalBinary(data []byte) error {
	return kernelwire.Unmarshal(krqaFormat, m, data, 0, func(k kernel.Kernel, body *wire.Reader) (*KRQA, error) {
		return decodeOnline(body, false, func(h onlineHead) (*KRQA, error) {
			return NewKRQA(k, h.d, KRQAOptions{Components: h.r, Seed: h.seed, Uncentred: h.uncentred})
		})
	})
}

// componentFloats: α_i, n floats.
func (m *KHA) componentFloats(n int) int { return n }

func (m *KHA) readStarted(dec *decoder, n, t int) {
	for i := range m.r {
		m.alpha[i] = dec.floats(n, "the coefficients")
	}
	m.ready, m.t = true, t
}

// products: a KHA stores none.
func (m *KHA) products() (alpha, p [][]float64) { return nil, nil }

func (m *KHA) body(f *wire.Fields) {
	o := m.opts
	onlineHead{d: m.s.d, r: o.Components, rated: true, rate: o.Rate, decay: o.Decay, seed: o.Seed, uncentred: o.Uncentred}.write(f)
	m.s.body(f, m.ready, m.t)
	if !m.ready {
		return
	}
	for _, a := range m.alpha {
		f.F64(a...)
	}
}

// encode returns the body of m's encoding; a zero KHA, or a kernel that cannot be
// encoded (not a kernel.Specified), is an ErrArgument.
func (m *KHA) encode() (wire.Body, error) { return encodeOnline(m, "KHA", m.body) }

// MarshalBinary encodes the model — its kernel, options, samples, sums and coefficients —
// in the format above: n·(d + r + 1) + O(1) numbers. It implements
// encoding.BinaryMarshaler and leaves the model unchanged. A kernel that does not
// describe itself (kernel.Specified: every built-in kernel and kernel.Func do), or a
// zero KHA, is an ErrArgument.
func (m *KHA) MarshalBinary() ([]byte, error) { return khaFormat.Marshal(m.encode) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time,
// with the errors of ikpca.Persistent.
func (m *KHA) MarshalBinaryTo(w io.Writer) (int, error) { return khaFormat.MarshalTo(w, m.encode) }

// UnmarshalBinaryFrom restores m from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (m *KHA) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return khaFormat.UnmarshalFrom(r, m.UnmarshalBinary)
}

// UnmarshalBinary replaces m by the model encoded in data (by MarshalBinary); a zero KHA
// may receive it. It implements encoding.BinaryUnmarshaler. The kernel is rebuilt from
// its Spec (kernel.New): a kernel.Func must have been registered under its name
// (kernel.Register). Data that is not an encoded model, of another version, truncated,
// corrupted or with bytes left over, a kernel that cannot be rebuilt or is not as it
// describes itself, options NewKHA refuses, sizes beyond the bytes present (checked
// before anything is allocated), a number that is not finite, an iteration state no
// model reaches, or row sums and a total that are not those of the samples (recomputed
// in O(n²·d)) gives an error wrapping ErrEncoding and leaves m
// unchanged.
func (m *KHA) UnmarshalBinary(data []byte) error {
	return kernelwire.Unmarshal(khaFormat, m, data, 0, func(k kernel.Kernel, body *wire.Reader) (*KHA, error) {
		return decodeOnline(body, true, func(h onlineHead) (*KHA, error) {
			return NewKHA(k, h.d, KHAOptions{Components: h.r, Rate: h.rate, Decay: h.decay, Seed: h.seed, Uncentred: h.uncentred})
		})
	})
}
