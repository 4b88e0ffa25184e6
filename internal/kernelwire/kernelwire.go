// Package kernelwire holds the kernel of the library's binary encodings: a model's
// kernel.Spec in the one layout every encoding that stores one shares (nystrom,
// chinsuter, and stream's SKPCA, RNCA, KRQA and KHA; kpca's header stores its Spec in
// JSON), checked before it is written, and read back and rebuilt by kernel.New with the
// same checks (docs/design.md, "Encodings"). The layout, little-endian:
//
//	name    uint32 length (≤ 255), then the name, UTF-8
//	σ       float64 (Spec.Sigma)
//	γ       float64 (Spec.Gamma)
//	degree  int64   (Spec.Degree)
//	c       float64 (Spec.Coef0)
//
// The fields are in the order of kernel.Spec's, and stored bit for bit: a decoded
// kernel's Spec must be the encoded one exactly, so that a decoded model encodes to the
// same bytes.
package kernelwire

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// MaxName bounds a kernel's name in an encoding, in bytes.
const MaxName = 255

// numbers is the length of a Spec's encoding after its name: σ, γ, degree and c.
const numbers = 4 * 8

// Len returns the length of the encoding of s.
func Len(s kernel.Spec) int { return 4 + len(s.Name) + numbers }

// Of returns the Spec of k, which an encoding stores. k must describe itself
// (kernel.Specified: every built-in kernel and kernel.Func), with a name of at most
// MaxName bytes of UTF-8, which Read can read back; anything else is an error wrapping
// kind, the caller's ErrArgument. A Func's function is not encoded, only its name.
func Of(k kernel.Kernel, kind error) (kernel.Spec, error) {
	sk, ok := k.(kernel.Specified)
	if !ok {
		return kernel.Spec{}, fmt.Errorf("%w: kernel %T cannot be encoded (implement kernel.Specified, as the built-in kernels and kernel.Func do)", kind, k)
	}
	s := sk.Spec()
	if len(s.Name) > MaxName || !utf8.ValidString(s.Name) {
		return kernel.Spec{}, fmt.Errorf("%w: kernel name of %d bytes, at most %d of UTF-8", kind, len(s.Name), MaxName)
	}
	return s, nil
}

// Append appends the encoding of s to b.
func Append(b []byte, s kernel.Spec) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.Name)))
	b = append(b, s.Name...)
	b = wire.AppendFloats(b, s.Sigma, s.Gamma)
	b = binary.LittleEndian.AppendUint64(b, uint64(int64(s.Degree)))
	return wire.AppendFloats(b, s.Coef0)
}

// Read reads the encoding of a Spec from the front of r, after checking that its bytes
// are there, and rebuilds its kernel by kernel.New: a built-in kernel from its
// parameters, a kernel.Func from the registry (kernel.Register), which must hold its
// name. The Spec must be the one the rebuilt kernel reports, bit for bit — no −0 where
// it reports 0, no parameter it does not use, its name's case — so that a decoded model
// encodes to the same bytes. Any failure is an error wrapping kind, the caller's
// ErrEncoding (and no other kind: kernel.New's ErrArgument is not wrapped), and a name
// neither built in nor registered is one too: it cannot be decoded in this process.
func Read(r *wire.Reader, kind error) (kernel.Kernel, error) {
	if r.Len() < 4 {
		return nil, fmt.Errorf("%w: the kernel's Spec: %d bytes left (truncated)", kind, r.Len())
	}
	l := r.U32()
	if l > MaxName || uint64(l)+numbers > uint64(r.Len()) {
		return nil, fmt.Errorf("%w: a kernel name of %d bytes (at most %d) with %d bytes left", kind, l, MaxName, r.Len())
	}
	s := kernel.Spec{Name: string(r.Bytes(int(l)))}
	s.Sigma, s.Gamma = r.F64(), r.F64()
	degree := int64(r.U64())
	s.Coef0 = r.F64()
	if !utf8.ValidString(s.Name) {
		return nil, fmt.Errorf("%w: kernel name is not UTF-8", kind)
	}
	// An int64 the platform's int cannot hold (a 32-bit one) is no kernel's degree here.
	if int64(int(degree)) != degree {
		return nil, fmt.Errorf("%w: kernel degree %d", kind, degree)
	}
	s.Degree = int(degree)
	k, err := kernel.New(s)
	if err != nil {
		if !kernel.IsBuiltin(s.Name) {
			return nil, fmt.Errorf("%w: kernel %q is neither built in nor registered (kernel.Register): %v", kind, s.Name, err)
		}
		return nil, fmt.Errorf("%w: %v", kind, err)
	}
	if kernel.IsPrecomputed(k) {
		// No model of these encodings takes kernel values as columns (only kpca does,
		// whose encoding is its own).
		return nil, fmt.Errorf("%w: kernel %q: this model evaluates its kernel and cannot have a precomputed one", kind, s.Name)
	}
	sk, ok := k.(kernel.Specified)
	if !ok || !same(sk.Spec(), s) {
		return nil, fmt.Errorf("%w: kernel %+v is not as the kernel describes itself", kind, s)
	}
	return k, nil
}

// Body returns body with the Spec of the model's kernel k written before it: the body
// of an encoding that stores its kernel first. A kernel Of refuses is an error wrapping
// kind, the caller's ErrArgument.
func Body(k kernel.Kernel, kind error, body wire.Body) (wire.Body, error) {
	s, err := Of(k, kind)
	if err != nil {
		return wire.Body{}, err
	}
	spec := Append(nil, s)
	return wire.Body{Len: uint64(len(spec)) + body.Len, Write: func(f *wire.Fields) {
		f.Bytes(spec)
		body.Write(f)
	}}, nil
}

// Unmarshal is the UnmarshalBinary of a model whose encoding (format) stores its kernel
// first: it checks data's frame (format.Open), reads and rebuilds the kernel (Read;
// every error wraps format.Encoding), checks that at least fixed bytes follow — the
// model's fields of fixed length, which decode may then read without checking — and
// gives the kernel and the rest of the body to decode; only then does it replace *dst by
// what decode returns (wire.Unmarshal), so that data refused leaves the receiver as it
// was.
func Unmarshal[T any](format wire.Format, dst *T, data []byte, fixed int, decode func(kernel.Kernel, *wire.Reader) (*T, error)) error {
	return wire.Unmarshal(format, dst, data, func(body []byte) (*T, error) {
		r := wire.NewReader(body)
		k, err := Read(r, format.Encoding)
		if err != nil {
			return nil, err
		}
		if r.Len() < fixed {
			return nil, fmt.Errorf("%w: %d bytes after the kernel, fewer than the header's %d", format.Encoding, r.Len(), fixed)
		}
		return decode(k, r)
	})
}

// same reports whether two Specs are the same bit for bit: == on the struct holds for
// −0 and +0, and an encoding with −0 in a parameter the kernel does not use (found by
// nystrom's FuzzLoadModel) would decode to a model that encodes to other bytes.
func same(a, b kernel.Spec) bool {
	return a.Name == b.Name && a.Degree == b.Degree &&
		math.Float64bits(a.Sigma) == math.Float64bits(b.Sigma) &&
		math.Float64bits(a.Gamma) == math.Float64bits(b.Gamma) &&
		math.Float64bits(a.Coef0) == math.Float64bits(b.Coef0)
}
