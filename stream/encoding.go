package stream

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// What the four models' encodings share (ikpca.Persistent): the frame of every
// encoding of the module and its four methods (internal/wire.Format: an 8-byte magic, a
// version, the body's length, the body and a SHA-256 of all of it), a body written
// field by field to a stream as it is produced (wire.Fields), its length counted by a
// first pass (wire.Counted), the kernel first as its kernel.Spec (internal/kernelwire),
// and reads that check every size against the bytes present before allocating
// (decoder). docs/design.md, "Streaming encodings", lists each model's body.

// MaxDecodeFloats bounds the float64s a decoded SKPCA or RNCA allocates beyond those its
// encoding holds: the random features' frequencies (d×D/2 or d×D), made again from the
// seed, and an SKPCA's components (D×ℓ and D×(ℓ+1)), for which the encoding holds only
// the options. A decoder refuses, before allocating, a model beyond it (2²⁵ float64s,
// 256 MiB); a variable, so that a program that decodes larger models (or a test or
// fuzz target that wants smaller ones) may change it. The sketch's own arrays are
// bounded by sketch.MaxDecodeFloats; what KRQA and KHA allocate is held in their
// encodings.
var MaxDecodeFloats = 1 << 25

// encodingFormat returns the wire.Format of one of the package's encodings: its magic
// and version, what errors call it, and the package's ErrArgument and ErrEncoding.
func encodingFormat(magic string, version uint32, what string) wire.Format {
	return wire.Format{Magic: magic, Version: version, What: what, Argument: ErrArgument, Encoding: ErrEncoding}
}

// withKernel returns the body of an encoding that starts with the Spec of the model's
// kernel k and goes on with what write writes (kernelwire.Body), its length counted by
// a first pass that writes nothing (wire.Counted). A kernel that cannot be encoded is
// an ErrArgument.
func withKernel(k kernel.Kernel, write func(*wire.Fields)) (wire.Body, error) {
	return kernelwire.Body(k, ErrArgument, wire.Counted(write))
}

// zeroModel is the error of encoding a zero value of the model type name, which
// New<name> did not make: an ErrArgument.
func zeroModel(name string) error {
	return fmt.Errorf("%w: a zero %s (make one with New%s, or decode one)", ErrArgument, name, name)
}

// maxCount bounds the counts an encoding stores (points, presentations): an int.
const maxCount = math.MaxInt

// decoder reads a body's fields in order. The first field that is not there — a body
// cut short — or not valid stops it: every later read returns zero, and err says what
// went wrong (ErrEncoding).
type decoder struct {
	r   *wire.Reader
	err error
}

func newDecoder(r *wire.Reader) *decoder { return &decoder{r: r} }

// fail records the first error.
func (dec *decoder) fail(format string, args ...any) {
	if dec.err == nil {
		dec.err = fmt.Errorf("%w: "+format, append([]any{ErrEncoding}, args...)...)
	}
}

// has reports whether n more bytes are there, and fails if not.
func (dec *decoder) has(n uint64, what string) bool {
	if dec.err != nil {
		return false
	}
	if n > uint64(dec.r.Len()) {
		dec.fail("%s: %d bytes needed, %d left (truncated)", what, n, dec.r.Len())
		return false
	}
	return true
}

func (dec *decoder) u8(what string) uint8 {
	if !dec.has(1, what) {
		return 0
	}
	return dec.r.U8()
}

func (dec *decoder) u32(what string) uint32 {
	if !dec.has(4, what) {
		return 0
	}
	return dec.r.U32()
}

func (dec *decoder) u64(what string) uint64 {
	if !dec.has(8, what) {
		return 0
	}
	return dec.r.U64()
}

// bool reads a flag, 0 or 1.
func (dec *decoder) bool(what string) bool {
	v := dec.u8(what)
	if v > 1 {
		dec.fail("%s: flag %d, want 0 or 1", what, v)
	}
	return v == 1
}

// size reads a uint64 that is a count of something, at most max (itself at most
// math.MaxInt).
func (dec *decoder) size(what string, max uint64) int {
	v := dec.u64(what)
	if v > max {
		dec.fail("%s: %d, at most %d", what, v, max)
		return 0
	}
	return int(v)
}

// f64 reads one float, which must be finite.
func (dec *decoder) f64(what string) float64 {
	v := math.Float64frombits(dec.u64(what))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		dec.fail("%s is %g", what, v)
		return 0
	}
	return v
}

// floats reads k finite floats into a new slice, after checking that they are there:
// a forged count costs no memory.
func (dec *decoder) floats(k int, what string) []float64 {
	if dec.err != nil {
		return nil
	}
	if k < 0 || uint64(k) > uint64(dec.r.Len())/8 {
		dec.fail("%s: %d numbers, and %d bytes left (truncated)", what, k, dec.r.Len())
		return nil
	}
	xs, err := dec.r.Floats(k, ErrEncoding, what)
	if err != nil {
		dec.err = err
		return nil
	}
	return xs
}

// end fails unless the body has been read to its end.
func (dec *decoder) end() error {
	if dec.err == nil && dec.r.Len() != 0 {
		dec.fail("%d bytes after the model", dec.r.Len())
	}
	return dec.err
}

// rawF64 reads a float as it is: the constructor judges it.
func (dec *decoder) rawF64(what string) float64 { return math.Float64frombits(dec.u64(what)) }
