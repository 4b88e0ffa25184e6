package stream

import (
	"fmt"
	"io"
	"math"

	"github.com/ikpca/ikpca/internal/check"
)

// Encodings of KRQA and KHA: the frame of every encoding of the module (magic
// "IKPCAKRQ" or "IKPCAKHA", version 1; internal/wire) around the body, integers and
// floats little-endian:
//
//	kernel   the kernel's Spec (encoder.spec): name and parameters; a kernel.Func by
//	         its name, rebuilt from the registry (kernel.Register)
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

// body writes the samples' part of a body: the state, the points and the sums.
func (s *samples) body(e *encoder, ready bool, t int) {
	e.u64(uint64(s.n))
	e.bool(ready)
	e.u64(uint64(t))
	e.floats(s.x[:s.n*s.d]...)
	e.floats(s.rowsum[:s.n]...)
	e.floats(s.total)
}

// decodeSamples reads the samples' part of a body into s (newSamples'), and returns
// whether the iteration had started and the presentations made. Every size is checked
// against the bytes left before anything is allocated.
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
// magnitudes), and an absolute n·2⁻¹⁰⁰⁰ for values that underflowed. It evaluates the
// kernel n times, O(n·d), far less than a pass.
func (s *samples) checkSums() error {
	diag := make([]float64, s.n)
	var root float64
	for i := range s.n {
		x := s.x[i*s.d : (i+1)*s.d]
		v := s.kern.Eval(x, x)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: the kernel value of sample %d with itself is %g", ErrEncoding, i, v)
		}
		diag[i] = math.Sqrt(math.Abs(v))
		root += diag[i]
	}
	tiny := float64(s.n) * 0x1p-1000
	for l, r := range s.rowsum {
		if !(math.Abs(r) <= (1+1e-4)*diag[l]*root+tiny) {
			return fmt.Errorf("%w: row sum %d of the kernel matrix is %g, beyond √k·Σ√k = %g", ErrEncoding, l, r, diag[l]*root)
		}
	}
	if !(math.Abs(s.total) <= (1+1e-4)*root*root+tiny) {
		return fmt.Errorf("%w: the kernel matrix's total is %g, beyond (Σ√k)² = %g", ErrEncoding, s.total, root*root)
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

func (m *KRQA) body(e *encoder, spec []byte) {
	o := m.opts
	e.raw(spec)
	e.u64(uint64(m.s.d))
	e.u64(uint64(o.Components))
	e.u64(o.Seed)
	e.bool(o.Uncentred)
	m.s.body(e, m.ready, m.t)
	if !m.ready {
		return
	}
	for i := range m.r {
		e.floats(m.alpha[i]...)
		e.floats(m.p[i]...)
	}
	e.floats(m.sb...)
	e.floats(m.sp...)
	e.floats(m.q...)
}

// spec returns the encoding of the kernel's Spec; a zero KRQA, or a kernel that cannot
// be encoded (not a kernel.Specified), is an ErrArgument.
func (m *KRQA) spec() ([]byte, error) {
	if m.s == nil {
		return nil, fmt.Errorf("%w: a zero KRQA (make one with NewKRQA, or decode one)", ErrArgument)
	}
	return encodedKernel(m.s.kern)
}

// MarshalBinary encodes the model — its kernel, options, samples, sums and iteration
// state — in the format above: n·(d + 2r + 1) + O(r) numbers. It implements
// encoding.BinaryMarshaler and leaves the model unchanged. A kernel that does not
// describe itself (kernel.Specified: every built-in kernel and kernel.Func do), or a
// zero KRQA, is an ErrArgument.
func (m *KRQA) MarshalBinary() ([]byte, error) {
	spec, err := m.spec()
	if err != nil {
		return nil, err
	}
	return marshal(krqaMagic, onlineVersion, func(e *encoder) { m.body(e, spec) })
}

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time, and
// returns the number of bytes written. A nil w, or what MarshalBinary refuses, is an
// ErrArgument; w's own errors are returned as they are.
func (m *KRQA) MarshalBinaryTo(w io.Writer) (int, error) {
	if w == nil {
		return 0, fmt.Errorf("%w: nil writer", ErrArgument)
	}
	spec, err := m.spec()
	if err != nil {
		return 0, err
	}
	return marshalTo(w, krqaMagic, onlineVersion, func(e *encoder) { m.body(e, spec) })
}

// UnmarshalBinaryFrom reads one encoding from r — exactly its bytes — and replaces m by
// the model it encodes, as UnmarshalBinary does, returning the number of bytes read. A
// nil r is an ErrArgument; a stream that ends early an ErrEncoding; r's own errors are
// returned as they are. On error m is unchanged.
func (m *KRQA) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return unmarshalFrom(r, krqaMagic, "KRQA model", m.UnmarshalBinary)
}

// UnmarshalBinary replaces m by the model encoded in data (by MarshalBinary); a zero KRQA
// may receive it. It implements encoding.BinaryUnmarshaler. The kernel is rebuilt from
// its Spec (kernel.New): a kernel.Func must have been registered under its name
// (kernel.Register). Data that is not an encoded model, of another version, truncated,
// corrupted or with bytes left over, a kernel that cannot be rebuilt or is not as it
// describes itself, options NewKRQA refuses, sizes beyond the bytes present (checked
// before anything is allocated), a number that is not finite, a negative eigenvalue
// estimate, or an iteration state no model reaches (started with fewer samples than
// it needs, presentations before the start) gives an error wrapping ErrEncoding and
// leaves m unchanged.
func (m *KRQA) UnmarshalBinary(data []byte) error {
	body, err := openFrame(data, krqaMagic, "KRQA model", onlineVersion)
	if err != nil {
		return err
	}
	dec := newDecoder(body)
	k := dec.kernel()
	d := dec.size("the dimension", check.MaxFloats)
	r := dec.size("the number of components", maxCount)
	seed := dec.u64("the seed")
	uncentred := dec.bool("Uncentred")
	if dec.err != nil {
		return dec.err
	}
	got, err := NewKRQA(k, d, KRQAOptions{Components: r, Seed: seed, Uncentred: uncentred})
	if err != nil {
		return fmt.Errorf("%w: %s", ErrEncoding, err)
	}
	ready, t := dec.samples(got.s)
	if dec.err != nil {
		return dec.err
	}
	n := got.s.n
	if err := checkState(ready, n, need(r, uncentred), t); err != nil {
		return err
	}
	if ready {
		if uint64(r) > uint64(dec.r.Len())/8/uint64(2*n+3) {
			return fmt.Errorf("%w: %d components over %d samples in %d bytes", ErrEncoding, r, n, dec.r.Len())
		}
		for i := range r {
			got.alpha[i] = dec.floats(n, "the coefficients")
			got.p[i] = dec.floats(n, "the kernel products")
		}
		got.sb = dec.floats(r, "the coefficients' sums")
		got.sp = dec.floats(r, "the products' sums")
		got.q = dec.floats(r, "the eigenvalue estimates")
		if dec.err == nil {
			// Q is an average of squares, and Values reports n·Q.
			for i, v := range got.q {
				if v < 0 || math.IsInf(float64(n)*v, 0) {
					return fmt.Errorf("%w: eigenvalue estimate %d is %g, of %d samples", ErrEncoding, i, v, n)
				}
			}
		}
		got.ready, got.t = true, t
	}
	if err := dec.end(); err != nil {
		return err
	}
	*m = *got
	return nil
}

func (m *KHA) body(e *encoder, spec []byte) {
	o := m.opts
	e.raw(spec)
	e.u64(uint64(m.s.d))
	e.u64(uint64(o.Components))
	e.floats(o.Rate, o.Decay)
	e.u64(o.Seed)
	e.bool(o.Uncentred)
	m.s.body(e, m.ready, m.t)
	if !m.ready {
		return
	}
	for _, a := range m.alpha {
		e.floats(a...)
	}
}

// spec returns the encoding of the kernel's Spec; a zero KHA, or a kernel that cannot be
// encoded (not a kernel.Specified), is an ErrArgument.
func (m *KHA) spec() ([]byte, error) {
	if m.s == nil {
		return nil, fmt.Errorf("%w: a zero KHA (make one with NewKHA, or decode one)", ErrArgument)
	}
	return encodedKernel(m.s.kern)
}

// MarshalBinary encodes the model — its kernel, options, samples, sums and coefficients —
// in the format above: n·(d + r + 1) + O(1) numbers. It implements
// encoding.BinaryMarshaler and leaves the model unchanged. A kernel that does not
// describe itself (kernel.Specified: every built-in kernel and kernel.Func do), or a
// zero KHA, is an ErrArgument.
func (m *KHA) MarshalBinary() ([]byte, error) {
	spec, err := m.spec()
	if err != nil {
		return nil, err
	}
	return marshal(khaMagic, onlineVersion, func(e *encoder) { m.body(e, spec) })
}

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time, and
// returns the number of bytes written. A nil w, or what MarshalBinary refuses, is an
// ErrArgument; w's own errors are returned as they are.
func (m *KHA) MarshalBinaryTo(w io.Writer) (int, error) {
	if w == nil {
		return 0, fmt.Errorf("%w: nil writer", ErrArgument)
	}
	spec, err := m.spec()
	if err != nil {
		return 0, err
	}
	return marshalTo(w, khaMagic, onlineVersion, func(e *encoder) { m.body(e, spec) })
}

// UnmarshalBinaryFrom reads one encoding from r — exactly its bytes — and replaces m by
// the model it encodes, as UnmarshalBinary does, returning the number of bytes read. A
// nil r is an ErrArgument; a stream that ends early an ErrEncoding; r's own errors are
// returned as they are. On error m is unchanged.
func (m *KHA) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return unmarshalFrom(r, khaMagic, "KHA model", m.UnmarshalBinary)
}

// UnmarshalBinary replaces m by the model encoded in data (by MarshalBinary); a zero KHA
// may receive it. It implements encoding.BinaryUnmarshaler. The kernel is rebuilt from
// its Spec (kernel.New): a kernel.Func must have been registered under its name
// (kernel.Register). Data that is not an encoded model, of another version, truncated,
// corrupted or with bytes left over, a kernel that cannot be rebuilt or is not as it
// describes itself, options NewKHA refuses, sizes beyond the bytes present (checked
// before anything is allocated), a number that is not finite, or an iteration state no
// model reaches gives an error wrapping ErrEncoding and leaves m unchanged.
func (m *KHA) UnmarshalBinary(data []byte) error {
	body, err := openFrame(data, khaMagic, "KHA model", onlineVersion)
	if err != nil {
		return err
	}
	dec := newDecoder(body)
	k := dec.kernel()
	d := dec.size("the dimension", check.MaxFloats)
	r := dec.size("the number of components", maxCount)
	rate, decay := dec.rawF64("the rate"), dec.rawF64("the decay")
	seed := dec.u64("the seed")
	uncentred := dec.bool("Uncentred")
	if dec.err != nil {
		return dec.err
	}
	got, err := NewKHA(k, d, KHAOptions{Components: r, Rate: rate, Decay: decay, Seed: seed, Uncentred: uncentred})
	if err != nil {
		return fmt.Errorf("%w: %s", ErrEncoding, err)
	}
	ready, t := dec.samples(got.s)
	if dec.err != nil {
		return dec.err
	}
	n := got.s.n
	if err := checkState(ready, n, need(r, uncentred), t); err != nil {
		return err
	}
	if ready {
		if uint64(r) > uint64(dec.r.Len())/8/uint64(max(n, 1)) {
			return fmt.Errorf("%w: %d components over %d samples in %d bytes", ErrEncoding, r, n, dec.r.Len())
		}
		for i := range r {
			got.alpha[i] = dec.floats(n, "the coefficients")
		}
		got.ready, got.t = true, t
	}
	if err := dec.end(); err != nil {
		return err
	}
	*m = *got
	return nil
}
