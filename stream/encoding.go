package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// What the four models' encodings share (ikpca.Persistent): the frame of every
// encoding of the module (internal/wire: an 8-byte magic, a version, the body's length,
// the body and a SHA-256 of all of it), a body written field by field to a stream as it
// is produced, the kernel as its kernel.Spec, and reads that check every size against
// the bytes present before allocating. docs/design.md, "Streaming encodings", lists
// each model's body.

// MaxDecodeFloats bounds the float64s a decoded SKPCA or RNCA allocates beyond those its
// encoding holds: the random features' frequencies (d×D/2 or d×D), made again from the
// seed, and an SKPCA's components (D×ℓ and D×(ℓ+1)), for which the encoding holds only
// the options. A decoder refuses, before allocating, a model beyond it (2²⁵ float64s,
// 256 MiB); a variable, so that a program that decodes larger models (or a test or
// fuzz target that wants smaller ones) may change it. The sketch's own arrays are
// bounded by sketch.MaxDecodeFloats; what KRQA and KHA allocate is held in their
// encodings.
var MaxDecodeFloats = 1 << 25

// encoder writes a body's fields: to nothing, counting the bytes (w nil), or to w
// through a buffer, so that a large body is never held whole. A wire.Writer keeps the
// first write error, which its Close returns.
type encoder struct {
	w   io.Writer
	buf []byte
	n   uint64
}

// flushAt is the buffer's size: large enough that writes are few, small enough not to
// matter beside a model.
const flushAt = 1 << 16

func (e *encoder) add(size int, put func([]byte) []byte) {
	e.n += uint64(size)
	if e.w == nil {
		return
	}
	e.buf = put(e.buf)
	if len(e.buf) >= flushAt {
		e.flush()
	}
}

func (e *encoder) flush() {
	if e.w != nil && len(e.buf) > 0 {
		_, _ = e.w.Write(e.buf) // a wire.Writer keeps the error for Close
		e.buf = e.buf[:0]
	}
}

func (e *encoder) u8(v uint8) { e.add(1, func(b []byte) []byte { return append(b, v) }) }

func (e *encoder) u32(v uint32) {
	e.add(4, func(b []byte) []byte { return binary.LittleEndian.AppendUint32(b, v) })
}

func (e *encoder) u64(v uint64) {
	e.add(8, func(b []byte) []byte { return binary.LittleEndian.AppendUint64(b, v) })
}

func (e *encoder) bool(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}

// floats writes xs, bit for bit.
func (e *encoder) floats(xs ...float64) {
	for len(xs) > 0 {
		c := min(len(xs), flushAt/8)
		e.add(8*c, func(b []byte) []byte { return wire.AppendFloats(b, xs[:c]...) })
		xs = xs[c:]
	}
}

// raw writes p as it is.
func (e *encoder) raw(p []byte) { e.add(len(p), func(b []byte) []byte { return append(b, p...) }) }

// maxNameLen bounds a kernel's name in an encoding.
const maxNameLen = 255

// specOf returns the Spec of the kernel k, which an encoding stores: every built-in
// kernel and kernel.Func describe themselves (kernel.Specified). A kernel that cannot,
// or whose name is longer than 255 bytes, is an ErrArgument.
func specOf(k kernel.Kernel) (kernel.Spec, error) {
	sk, ok := k.(kernel.Specified)
	if !ok { // a nil kernel never gets here: kernel.Validate refused it at construction
		return kernel.Spec{}, fmt.Errorf("%w: kernel %T cannot be encoded (implement kernel.Specified, as the built-in kernels and kernel.Func do)", ErrArgument, k)
	}
	spec := sk.Spec()
	if len(spec.Name) > maxNameLen || !utf8.ValidString(spec.Name) {
		return kernel.Spec{}, fmt.Errorf("%w: kernel name of %d bytes, at most %d of UTF-8", ErrArgument, len(spec.Name), maxNameLen)
	}
	return spec, nil
}

// specBytes returns the encoding of a kernel's Spec: uint32 name length, the name,
// float64 σ, float64 γ, int64 degree, float64 c (kernel.Spec: Sigma, Gamma, Degree,
// Coef0).
func specBytes(s kernel.Spec) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(s.Name)))
	b = append(b, s.Name...)
	b = wire.AppendFloats(b, s.Sigma, s.Gamma)
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(s.Degree)))
	return wire.AppendFloats(b, s.Coef0)
}

// encodedKernel returns the encoding of the model's kernel's Spec (specOf, specBytes).
func encodedKernel(k kernel.Kernel) ([]byte, error) {
	s, err := specOf(k)
	if err != nil {
		return nil, err
	}
	return specBytes(s), nil
}

// openFrame checks the frame of data — exactly one frame of magic and version, its
// checksum — and returns its body (wire.OpenFrame; ErrEncoding).
func openFrame(data []byte, magic, what string, version uint32) ([]byte, error) {
	_, body, err := wire.OpenFrame(data, magic, ErrEncoding, what, version)
	return body, err
}

// maxCount bounds the counts an encoding stores (points, presentations): an int.
const maxCount = math.MaxInt

// marshalTo writes the frame of the body that body writes to w, streamed: a first call
// of body counts its bytes, for the frame's length, and a second writes them. A nil w
// is an ErrArgument; w's own errors are returned as they are.
func marshalTo(w io.Writer, magic string, version uint32, body func(*encoder)) (int, error) {
	if w == nil {
		return 0, fmt.Errorf("%w: nil writer", ErrArgument)
	}
	return write(w, magic, version, length(body), body)
}

// length returns the number of bytes body writes.
func length(body func(*encoder)) uint64 {
	var count encoder
	body(&count)
	return count.n
}

// write writes the frame of the body of n bytes that body writes to w.
func write(w io.Writer, magic string, version uint32, n uint64, body func(*encoder)) (int, error) {
	fw := wire.NewWriter(w, magic, version, n)
	e := encoder{w: fw, buf: make([]byte, 0, flushAt+8)}
	body(&e)
	e.flush()
	return fw.Close()
}

// marshal returns the frame of the body that body writes.
func marshal(magic string, version uint32, body func(*encoder)) ([]byte, error) {
	n := length(body)
	var b bytes.Buffer
	b.Grow(wire.Overhead + int(n))
	if _, err := write(&b, magic, version, n, body); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// unmarshalFrom reads one frame of magic from r (wire.ReadFrame: exactly its bytes, no
// more memory than the bytes r holds) and decodes it with unmarshal. A nil r is an
// ErrArgument; a stream that ends early is an ErrEncoding; r's own errors are returned
// as they are.
func unmarshalFrom(r io.Reader, magic, what string, unmarshal func([]byte) error) (int, error) {
	if r == nil {
		return 0, fmt.Errorf("%w: nil reader", ErrArgument)
	}
	b, n, err := wire.ReadFrame(r, magic, ErrEncoding, what)
	if err != nil {
		return n, err
	}
	return n, unmarshal(b)
}

// decoder reads a body's fields in order. The first field that is not there — a body
// cut short — or not valid stops it: every later read returns zero, and err says what
// went wrong (ErrEncoding).
type decoder struct {
	r   *wire.Reader
	err error
}

func newDecoder(body []byte) *decoder { return &decoder{r: wire.NewReader(body)} }

// fail records the first error.
func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrEncoding}, args...)...)
	}
}

// has reports whether n more bytes are there, and fails if not.
func (d *decoder) has(n uint64, what string) bool {
	if d.err != nil {
		return false
	}
	if n > uint64(d.r.Len()) {
		d.fail("%s: %d bytes needed, %d left (truncated)", what, n, d.r.Len())
		return false
	}
	return true
}

func (d *decoder) u8(what string) uint8 {
	if !d.has(1, what) {
		return 0
	}
	return d.r.U8()
}

func (d *decoder) u32(what string) uint32 {
	if !d.has(4, what) {
		return 0
	}
	return d.r.U32()
}

func (d *decoder) u64(what string) uint64 {
	if !d.has(8, what) {
		return 0
	}
	return d.r.U64()
}

// bool reads a flag, 0 or 1.
func (d *decoder) bool(what string) bool {
	v := d.u8(what)
	if v > 1 {
		d.fail("%s: flag %d, want 0 or 1", what, v)
	}
	return v == 1
}

// size reads a uint64 that is a count of something, at most max (itself at most
// math.MaxInt).
func (d *decoder) size(what string, max uint64) int {
	v := d.u64(what)
	if v > max {
		d.fail("%s: %d, at most %d", what, v, max)
		return 0
	}
	return int(v)
}

// f64 reads one float, which must be finite.
func (d *decoder) f64(what string) float64 {
	v := math.Float64frombits(d.u64(what))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		d.fail("%s is %g", what, v)
		return 0
	}
	return v
}

// floats reads k finite floats into a new slice, after checking that they are there:
// a forged count costs no memory.
func (d *decoder) floats(k int, what string) []float64 {
	if d.err != nil {
		return nil
	}
	if k < 0 || uint64(k) > uint64(d.r.Len())/8 {
		d.fail("%s: %d numbers, and %d bytes left (truncated)", what, k, d.r.Len())
		return nil
	}
	xs, err := d.r.Floats(k, ErrEncoding, what)
	if err != nil {
		d.err = err
		return nil
	}
	return xs
}

// end fails unless the body has been read to its end.
func (d *decoder) end() error {
	if d.err == nil && d.r.Len() != 0 {
		d.fail("%d bytes after the model", d.r.Len())
	}
	return d.err
}

// kernel reads a Spec (encoder.spec) and rebuilds its kernel with kernel.New: a
// built-in kernel from its parameters, a kernel.Func from the registry (kernel.Register),
// which must hold its name. The Spec must be the one the kernel reports, bit for bit
// (no −0 where it reports 0, no parameter it does not use, its name's case), so that a
// decoded model encodes to the same bytes.
func (d *decoder) kernel() kernel.Kernel {
	l := d.u32("the kernel's name length")
	if l > maxNameLen {
		d.fail("a kernel name of %d bytes, at most %d", l, maxNameLen)
		return nil
	}
	if !d.has(uint64(l), "the kernel's name") {
		return nil
	}
	var s kernel.Spec
	s.Name = string(d.r.Bytes(int(l)))
	s.Sigma, s.Gamma = d.rawF64("σ"), d.rawF64("γ")
	s.Degree = int(int64(d.u64("the degree")))
	s.Coef0 = d.rawF64("c")
	if d.err != nil {
		return nil
	}
	k, err := kernel.New(s)
	if err != nil {
		d.fail("%s", err) // one kind: the encoding's, not kernel.New's ErrArgument
		return nil
	}
	if got := k.(kernel.Specified).Spec(); !bytes.Equal(specBytes(got), specBytes(s)) {
		d.fail("kernel %+v is not as the kernel describes itself, %+v", s, got)
		return nil
	}
	return k
}

// rawF64 reads a float as it is: kernel.New judges the parameters.
func (d *decoder) rawF64(what string) float64 { return math.Float64frombits(d.u64(what)) }
