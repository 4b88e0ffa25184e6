package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
)

// idxHeader returns the header of an IDX file: the magic bytes of type typ and the sizes.
func idxHeader(typ byte, dims ...uint32) []byte {
	b := []byte{0, 0, typ, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return b
}

// idxFile returns an IDX file of type typ and the given sizes holding vals, each
// converted to the type (the caller picks values the type represents exactly).
func idxFile(typ byte, dims []uint32, vals []float64) []byte {
	b := idxHeader(typ, dims...)
	for _, v := range vals {
		switch typ {
		case idxUint8, idxInt8:
			b = append(b, byte(int(v)))
		case idxInt16:
			b = binary.BigEndian.AppendUint16(b, uint16(int16(v)))
		case idxInt32:
			b = binary.BigEndian.AppendUint32(b, uint32(int32(v)))
		case idxFloat32:
			b = binary.BigEndian.AppendUint32(b, math.Float32bits(float32(v)))
		case idxFloat64:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// gz compresses b with gzip.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// idxValues returns n values the type represents exactly, spanning its range (its
// extremes included), from a seeded generator.
func idxValues(typ byte, n int, rng *rand.Rand) []float64 {
	r := map[byte][2]float64{
		idxUint8: {0, 255}, idxInt8: {-128, 127}, idxInt16: {-32768, 32767},
		idxInt32: {math.MinInt32, math.MaxInt32}, idxFloat32: {-1e30, 1e30}, idxFloat64: {-1e300, 1e300},
	}[typ]
	lo, hi := r[0], r[1]
	v := make([]float64, n)
	for i := range v {
		switch i {
		case 0, 1:
			v[i] = r[i]
			if typ == idxFloat32 {
				v[i] = float64(float32(v[i]))
			}
		default:
			x := lo + (hi-lo)*rng.Float64()
			switch typ {
			case idxFloat32:
				v[i] = float64(float32(x))
			case idxFloat64:
				v[i] = x
			default:
				v[i] = math.Round(x)
			}
		}
	}
	return v
}

var idxTypeBytes = []byte{idxUint8, idxInt8, idxInt16, idxInt32, idxFloat32, idxFloat64}

// TestReadIDXRoundTrip: a file written here of every type, plain and gzip-compressed, of
// two and three dimensions, reads back exactly — unsigned bytes divided by 255 unless
// Raw, correctly rounded — whole, by rows (IDXReader) and cut short by a Limit.
func TestReadIDXRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range idxTypeBytes {
		for _, dims := range [][]uint32{{5, 3}, {4, 2, 3}, {1, 1}} {
			n, w := int(dims[0]), 1
			for _, d := range dims[1:] {
				w *= int(d)
			}
			vals := idxValues(typ, n*w, rng)
			plain := idxFile(typ, dims, vals)
			for _, file := range [][]byte{plain, gz(plain)} {
				for _, raw := range []bool{false, true} {
					want := slices.Clone(vals)
					if typ == idxUint8 && !raw {
						for i := range want {
							want[i] /= 255 // the definition of the scaling: the correctly rounded quotient
						}
					}
					X, err := ReadIDX(bytes.NewReader(file), IDXOptions{Raw: raw})
					if err != nil {
						t.Fatalf("type %#x %v raw %v: %v", typ, dims, raw, err)
					}
					if r, c := X.Dims(); r != n || c != w || !slices.Equal(X.RawMatrix().Data, want) {
						t.Errorf("type %#x %v raw %v: got %v, want %d×%d %v", typ, dims, raw, mat.Formatted(X), n, w, want)
					}
					// Row by row, and every way of cutting the file short.
					x, err := NewIDXReader(bytes.NewReader(file), IDXOptions{Raw: raw})
					if err != nil {
						t.Fatal(err)
					}
					wantDims := make([]int, len(dims))
					for i, d := range dims {
						wantDims[i] = int(d)
					}
					if !slices.Equal(x.Dims(), wantDims) || x.Width() != w || x.Len() != n {
						t.Errorf("type %#x %v: dims %v, width %d, len %d", typ, dims, x.Dims(), x.Width(), x.Len())
					}
					row := make([]float64, w)
					for i := range n {
						if err := x.Next(row); err != nil || !slices.Equal(row, want[i*w:(i+1)*w]) {
							t.Fatalf("type %#x %v: row %d: %v %v", typ, dims, i, row, err)
						}
					}
					if err := x.Next(row); err != io.EOF {
						t.Errorf("after the last row: %v", err)
					}
					for limit := 1; limit <= n+1; limit++ {
						X, err := ReadIDX(bytes.NewReader(file), IDXOptions{Raw: raw, Limit: limit})
						m := min(limit, n)
						if err != nil || !slices.Equal(X.RawMatrix().Data, want[:m*w]) {
							t.Errorf("type %#x %v limit %d: %v", typ, dims, limit, err)
						}
					}
				}
			}
		}
	}
}

// TestReadIDXLabels: labels of every integer type read back as they are, and a Limit
// reads the first ones.
func TestReadIDXLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, typ := range idxTypeBytes[:4] {
		vals := idxValues(typ, 20, rng)
		want := make([]int, len(vals))
		for i, v := range vals {
			want[i] = int(v)
		}
		file := idxFile(typ, []uint32{20}, vals)
		for _, f := range [][]byte{file, gz(file)} {
			y, err := ReadIDXLabels(bytes.NewReader(f), IDXOptions{})
			if err != nil || !slices.Equal(y, want) {
				t.Errorf("type %#x: %v %v, want %v", typ, y, err, want)
			}
			y, err = ReadIDXLabels(bytes.NewReader(f), IDXOptions{Limit: 7})
			if err != nil || !slices.Equal(y, want[:7]) {
				t.Errorf("type %#x, limit 7: %v %v", typ, y, err)
			}
		}
	}
}

// TestIDXLimitReadsNoFurther: with a Limit the reader stops after the items asked for
// (what follows may be missing, or be anything), and without one it reads to the end.
func TestIDXLimitReadsNoFurther(t *testing.T) {
	file := idxFile(idxUint8, []uint32{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	cut := append(file[:len(file)-2:len(file)-2], 0xff, 0xff, 0xff) // the third item is garbage, and too long
	X, err := ReadIDX(bytes.NewReader(cut), IDXOptions{Raw: true, Limit: 2})
	if err != nil || !slices.Equal(X.RawMatrix().Data, []float64{1, 2, 3, 4}) {
		t.Errorf("limit 2: %v %v", X, err)
	}
	if _, err := ReadIDX(bytes.NewReader(cut), IDXOptions{Raw: true}); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "bytes after") {
		t.Errorf("no limit: %v, want an error of the bytes after the data", err)
	}
	// A reader that is not read past the items it needs: the input after them fails.
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(file[:len(file)-2]), iotest.ErrReader(boom))
	x, err := NewIDXReader(r, IDXOptions{Raw: true, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float64, 2)
	if err := x.Next(row); err != nil || !slices.Equal(row, []float64{1, 2}) {
		t.Errorf("first row: %v %v", row, err)
	}
	if err := x.Next(row); err != io.EOF {
		t.Errorf("after the limit: %v, want io.EOF", err)
	}
}

// TestIDXErrorMessages: the errors say what is wrong in words a user can act on.
func TestIDXErrorMessages(t *testing.T) {
	images := idxFile(idxUint8, []uint32{2, 2, 2}, make([]float64, 8))
	labels := idxFile(idxUint8, []uint32{3}, []float64{1, 2, 3})
	for _, tc := range []struct {
		name, msg string
		call      func() error
	}{
		{"labels for images", "labels?", func() error { _, err := ReadIDX(bytes.NewReader(labels), IDXOptions{}); return err }},
		{"images for labels", "images?", func() error { _, err := ReadIDXLabels(bytes.NewReader(images), IDXOptions{}); return err }},
		{"truncated data", "the input ends in item 2 of 2", func() error {
			_, err := ReadIDX(bytes.NewReader(images[:len(images)-1]), IDXOptions{})
			return err
		}},
		{"truncated header", "the input ends in the header's 3 sizes", func() error {
			_, err := ReadIDX(bytes.NewReader(images[:9]), IDXOptions{})
			return err
		}},
		{"text", "not an IDX file", func() error { _, err := ReadIDX(strings.NewReader("1,2\n3,4\n"), IDXOptions{}); return err }},
		{"type", "unknown element type 0x0a", func() error { _, err := ReadIDX(bytes.NewReader(idxHeader(0x0a, 1, 1)), IDXOptions{}); return err }},
		{"NaN", "item 2 of 2, element 3 is NaN", func() error {
			_, err := ReadIDX(bytes.NewReader(idxFile(idxFloat64, []uint32{2, 3}, []float64{0, 0, 0, 0, 0, math.NaN()})), IDXOptions{})
			return err
		}},
		{"gzip checksum", "checksum", func() error {
			z := gz(images)
			z[len(z)-8] ^= 1 // the CRC-32 of the trailer
			_, err := ReadIDX(bytes.NewReader(z), IDXOptions{})
			return err
		}},
	} {
		err := tc.call()
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.msg)
		}
	}
}

// TestIDXReaderError: the source's own error is returned as it is, wrapped with what was
// being read, and wraps no kind of the module's; so is it when it comes through gzip.
func TestIDXReaderError(t *testing.T) {
	boom := errors.New("boom")
	file := idxFile(idxUint8, []uint32{4, 3}, make([]float64, 12))
	for _, src := range []struct {
		name string
		b    []byte
	}{{"plain", file}, {"gzip", gz(file)}} {
		for cut := 0; cut < len(src.b); cut++ {
			r := io.MultiReader(bytes.NewReader(src.b[:cut]), iotest.ErrReader(boom))
			_, err := ReadIDX(r, IDXOptions{})
			if !errors.Is(err, boom) {
				t.Fatalf("%s cut at %d: %v, want the reader's error", src.name, cut, err)
			}
			if ks := errtest.KindsOf(err); ks != nil {
				t.Fatalf("%s cut at %d: the reader's error %v wraps %v", src.name, cut, err, ks)
			}
		}
	}
}

// TestIDXTruncated: every proper prefix of a file, plain or compressed, is an error of
// the package's (ErrEmpty for nothing at all, ErrArgument otherwise), never a matrix.
func TestIDXTruncated(t *testing.T) {
	file := idxFile(idxInt16, []uint32{3, 2, 2}, make([]float64, 12))
	for _, src := range [][]byte{file, gz(file)} {
		for cut := range len(src) {
			X, err := ReadIDX(bytes.NewReader(src[:cut]), IDXOptions{})
			want := ikpca.ErrArgument
			if cut == 0 {
				want = ikpca.ErrEmpty
			}
			if X != nil || !errors.Is(err, want) {
				t.Fatalf("cut at %d of %d: %v, want %v", cut, len(src), err, want)
			}
		}
	}
}

// countingSource counts the bytes read from it.
type countingSource struct {
	r io.Reader
	n int
}

func (c *countingSource) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestIDXHeaderNotTrusted: a small file whose header declares the largest sizes allowed
// — 2^31−1 items of 2^28 float64 elements, a matrix of 2^28 unsigned bytes — costs
// memory in proportion to the bytes that arrive (48 KiB, three items of the second),
// not to the sizes declared.
func TestIDXHeaderNotTrusted(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  byte
		dims []uint32
	}{
		{"largest item", idxFloat64, []uint32{idxMaxItems, 1 << 14, 1 << 14}},
		{"largest matrix", idxUint8, []uint32{1 << 14, 1 << 14}},
	} {
		file := append(idxHeader(tc.typ, tc.dims...), make([]byte, 3<<14)...)
		for _, src := range [][]byte{file, gz(file)} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := ReadIDX(bytes.NewReader(src), IDXOptions{}); !errors.Is(err, ErrArgument) {
				t.Fatalf("%s: %v, want ErrArgument", tc.name, err)
			}
			runtime.ReadMemStats(&after)
			// 64 KiB of buffer, twice the bytes read, the decompressor's state: well under
			// 1 MiB, where trusting the header would take 2 GiB.
			got := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: %d bytes allocated for a file of %d", tc.name, got, len(src))
			if got > 1<<20 {
				t.Errorf("%s: %d bytes allocated for a file of %d", tc.name, got, len(src))
			}
		}
	}
}

// TestReadN: readN grows its buffer as the bytes arrive — doubling, never beyond what
// was asked — and says when the input ends first.
func TestReadN(t *testing.T) {
	data := make([]byte, 300000)
	for i := range data {
		data[i] = byte(i)
	}
	b, err := readN(iotest.OneByteReader(bytes.NewReader(data)), nil, len(data))
	if err != nil || !bytes.Equal(b, data) || cap(b) > 2*len(data) {
		t.Errorf("whole: %d bytes, cap %d, %v", len(b), cap(b), err)
	}
	b, err = readN(bytes.NewReader(data[:1000]), nil, 1<<30)
	if err != io.ErrUnexpectedEOF || len(b) != 1000 || cap(b) > 1<<17 {
		t.Errorf("short: %d bytes, cap %d, %v", len(b), cap(b), err)
	}
	b, err = readN(bytes.NewReader(data), []byte{7}, 5)
	if err != nil || !bytes.Equal(b, []byte{7, 0, 1, 2, 3}) {
		t.Errorf("appending: %v %v", b, err)
	}
}

// TestIDXNextDestination: Next with a destination of the wrong length is an error that
// changes nothing: the next call with the right one reads the first item; and an item
// with a non-finite element leaves dst as it was.
func TestIDXNextDestination(t *testing.T) {
	x, err := NewIDXReader(bytes.NewReader(idxFile(idxUint8, []uint32{1, 2}, []float64{3, 4})), IDXOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	dst := []float64{-1, -1, -1}
	if err := x.Next(dst); !errors.Is(err, ErrArgument) || !slices.Equal(dst, []float64{-1, -1, -1}) {
		t.Errorf("wrong length: %v, dst %v", err, dst)
	}
	if err := x.Next(dst[:2]); err != nil || !slices.Equal(dst[:2], []float64{3, 4}) {
		t.Errorf("then: %v %v", dst, err)
	}
	// A non-finite element is found before dst is written.
	x, err = NewIDXReader(bytes.NewReader(idxFile(idxFloat64, []uint32{2, 2}, []float64{1, 2, 3, math.Inf(1)})), IDXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dst = dst[:2]
	if err := x.Next(dst); err != nil {
		t.Fatal(err)
	}
	if err := x.Next(dst); !errors.Is(err, ErrNonFinite) || !slices.Equal(dst, []float64{1, 2}) {
		t.Errorf("+Inf: %v, dst %v", err, dst)
	}
}

// FuzzReadIDX: no input makes the readers panic or return something other than a
// matrix of the declared shape or an error of the package's kinds (or of gzip); a
// matrix read is the same row by row, and its unsigned bytes are in [0, 1].
func FuzzReadIDX(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, typ := range idxTypeBytes {
		file := idxFile(typ, []uint32{3, 2, 2}, idxValues(typ, 12, rng))
		f.Add(file, 0)
		f.Add(gz(file), 2)
		f.Add(file[:len(file)-1], 0)
		f.Add(file[:7], 0)
		f.Add(gz(file)[:20], 0)
	}
	f.Add(idxFile(idxUint8, []uint32{4}, []float64{1, 2, 3, 9}), 0)
	f.Add(append(idxFile(idxUint8, []uint32{1, 1}, []float64{1}), 0), 0)
	f.Add(idxHeader(idxUint8, 0xffffffff, 0xffff, 0xffff), 0)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 0 {
			limit = -limit % 8
		}
		opts := IDXOptions{Limit: limit % 8}
		X, err := ReadIDX(bytes.NewReader(b), opts)
		if err != nil {
			if X != nil {
				t.Fatal("a matrix with an error")
			}
			if ks := errtest.KindsOf(err); len(ks) != 1 {
				t.Fatalf("%v wraps the kinds %v, want one", err, ks)
			}
		}
		x, xerr := NewIDXReader(bytes.NewReader(b), opts)
		if err != nil {
			if xerr == nil {
				var rerr error
				row := make([]float64, x.Width())
				for rerr == nil {
					rerr = x.Next(row)
				}
				if len(x.Dims()) >= 2 && rerr == io.EOF && x.Len()*x.Width() <= idxMaxElements {
					t.Fatalf("ReadIDX: %v; IDXReader reads it all", err)
				}
			}
			ReadIDXLabels(bytes.NewReader(b), opts)
			return
		}
		if xerr != nil {
			t.Fatalf("ReadIDX reads it, NewIDXReader: %v", xerr)
		}
		r, c := X.Dims()
		if r != x.Len() || c != x.Width() || len(x.Dims()) < 2 {
			t.Fatalf("%d×%d, reader dims %v len %d", r, c, x.Dims(), x.Len())
		}
		row := make([]float64, c)
		for i := range r {
			if err := x.Next(row); err != nil || !slices.Equal(row, X.RawRowView(i)) {
				t.Fatalf("row %d: %v %v, want %v", i, row, err, X.RawRowView(i))
			}
		}
		if err := x.Next(row); err != io.EOF {
			t.Fatalf("after the rows: %v", err)
		}
		if x.typ == idxUint8 {
			for _, v := range X.RawMatrix().Data {
				if v < 0 || v > 1 {
					t.Fatalf("pixel %v outside [0, 1]", v)
				}
			}
		}
	})
}

// idxCases are the hostile arguments of the IDX readers and of FashionMNIST, for
// errorCases.
func idxCases(c *errtest.Cases) {
	arg, empty, nonFinite := ikpca.ErrArgument, ikpca.ErrEmpty, ikpca.ErrNonFinite
	images := idxFile(idxUint8, []uint32{2, 2, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	labels := idxFile(idxUint8, []uint32{3}, []float64{1, 2, 3})
	newReader := func(b []byte, opts IDXOptions) func() error {
		return func() error { _, err := NewIDXReader(bytes.NewReader(b), opts); return err }
	}
	read := func(b []byte) func() error {
		return func() error { _, err := ReadIDX(bytes.NewReader(b), IDXOptions{}); return err }
	}
	readLabels := func(b []byte) func() error {
		return func() error { _, err := ReadIDXLabels(bytes.NewReader(b), IDXOptions{}); return err }
	}
	// next reads every item of b with Next and returns the first error other than io.EOF.
	next := func(b []byte, width int) func() error {
		return func() error {
			x, err := NewIDXReader(bytes.NewReader(b), IDXOptions{})
			if err != nil {
				return err
			}
			row := make([]float64, width)
			for {
				if err := x.Next(row); err != nil {
					if err == io.EOF {
						return nil
					}
					if again := x.Next(row); len(row) == x.Width() && again != err {
						return errors.New("a second Next returned another error")
					}
					return err
				}
			}
		}
	}
	badGzip := gz(images)
	badGzip[len(badGzip)-8] ^= 1 // the CRC-32 of the trailer
	nan32 := idxFile(idxFloat32, []uint32{2, 1}, []float64{1, math.NaN()})
	inf64 := idxFile(idxFloat64, []uint32{1, 2}, []float64{math.Inf(-1), 1})

	c.Add("sourceReader.Read: the source's error, passed on and recorded", nil, func() error {
		boom := errors.New("boom")
		s := &sourceReader{r: iotest.ErrReader(boom)}
		if _, err := s.Read(make([]byte, 1)); err != boom || s.err != boom {
			return fmt.Errorf("returned %v, recorded %v", err, s.err)
		}
		return nil
	})
	c.Add("NewIDXReader: nil reader", arg, func() error { _, err := NewIDXReader(nil, IDXOptions{}); return err })
	c.Add("NewIDXReader: nil *bytes.Reader", arg, func() error { _, err := NewIDXReader((*bytes.Reader)(nil), IDXOptions{}); return err })
	c.Add("NewIDXReader: negative limit", arg, newReader(images, IDXOptions{Limit: -1}))
	c.Add("NewIDXReader: empty", empty, newReader(nil, IDXOptions{}))
	c.Add("NewIDXReader: empty gzip stream", empty, newReader(gz(nil), IDXOptions{}))
	c.Add("NewIDXReader: one byte", arg, newReader([]byte{0}, IDXOptions{}))
	c.Add("NewIDXReader: text", arg, newReader([]byte("1,2\n3,4\n"), IDXOptions{}))
	c.Add("NewIDXReader: magic 00 01", arg, newReader(append([]byte{0, 1}, images[2:]...), IDXOptions{}))
	c.Add("NewIDXReader: gzip magic, no gzip", arg, newReader([]byte{0x1f, 0x8b, 0, 0, 8, 1}, IDXOptions{}))
	c.Add("NewIDXReader: gzipped text", arg, newReader(gz([]byte("1,2\n")), IDXOptions{}))
	c.Add("NewIDXReader: unknown type 0x0A", arg, newReader(idxHeader(0x0a, 1, 1), IDXOptions{}))
	c.Add("NewIDXReader: type 0x00", arg, newReader(idxHeader(0, 1, 1), IDXOptions{}))
	c.Add("NewIDXReader: no dimensions", arg, newReader(idxHeader(idxUint8), IDXOptions{}))
	c.Add("NewIDXReader: header cut in the magic", arg, newReader(images[:3], IDXOptions{}))
	c.Add("NewIDXReader: header cut in the sizes", arg, newReader(images[:10], IDXOptions{}))
	c.Add("NewIDXReader: no items", empty, newReader(idxHeader(idxUint8, 0, 28, 28), IDXOptions{}))
	c.Add("NewIDXReader: empty items", empty, newReader(idxHeader(idxUint8, 5, 28, 0), IDXOptions{}))
	c.Add("NewIDXReader: items beyond 2^31−1", arg, newReader(idxHeader(idxUint8, 1<<31, 1), IDXOptions{}))
	c.Add("NewIDXReader: item beyond 2^28 elements", arg, newReader(idxHeader(idxUint8, 1, 1<<28+1), IDXOptions{}))
	c.Add("NewIDXReader: item size overflows", arg, newReader(idxHeader(idxFloat64, 1, 0xffffffff, 0xffffffff, 0xffffffff), IDXOptions{}))
	c.Add("NewIDXReader: first item cut", arg, newReader(images[:len(images)-5], IDXOptions{}))
	c.Add("NewIDXReader: first item missing, gzip", arg, newReader(gz(images[:14]), IDXOptions{}))
	c.Add("IDXReader.Next: destination too short", arg, next(images, 3))
	c.Add("IDXReader.Next: destination too long", arg, next(images, 5))
	c.Add("IDXReader.Next: second item cut", arg, next(images[:len(images)-1], 4))
	c.Add("IDXReader.Next: bytes after the data", arg, next(append(slices.Clone(images), 0), 4))
	c.Add("IDXReader.Next: gzip checksum", arg, next(badGzip, 4))
	c.Add("IDXReader.Next: garbage after the gzip stream", arg, next(append(gz(images), 'x'), 4))
	c.Add("IDXReader.Next: float32 NaN", nonFinite, next(nan32, 1))
	c.Add("IDXReader.Next: float64 −Inf", nonFinite, next(inf64, 2))
	c.Add("ReadIDX: nil reader", arg, func() error { _, err := ReadIDX(nil, IDXOptions{}); return err })
	c.Add("ReadIDX: empty", empty, read(nil))
	c.Add("ReadIDX: labels", arg, read(labels))
	c.Add("ReadIDX: labels, gzip", arg, read(gz(labels)))
	c.Add("ReadIDX: header only", arg, read(images[:16]))
	c.Add("ReadIDX: last item cut", arg, read(images[:len(images)-1]))
	c.Add("ReadIDX: bytes after the data", arg, read(append(slices.Clone(images), 1, 2)))
	c.Add("ReadIDX: gzip checksum", arg, read(badGzip))
	c.Add("ReadIDX: float32 NaN", nonFinite, read(nan32))
	c.Add("ReadIDX: float64 −Inf", nonFinite, read(inf64))
	c.Add("ReadIDX: matrix beyond 2^28 elements", arg, read(append(idxHeader(idxUint8, 1<<15, 1<<14), make([]byte, 1<<14)...)))
	c.Add("ReadIDX: limit", arg, func() error { _, err := ReadIDX(bytes.NewReader(images), IDXOptions{Limit: -5}); return err })
	c.Add("ReadIDXLabels: nil reader", arg, func() error { _, err := ReadIDXLabels(nil, IDXOptions{}); return err })
	c.Add("ReadIDXLabels: empty", empty, readLabels(nil))
	c.Add("ReadIDXLabels: images", arg, readLabels(images))
	c.Add("ReadIDXLabels: float64", arg, readLabels(idxFile(idxFloat64, []uint32{2}, []float64{1, 2})))
	c.Add("ReadIDXLabels: cut", arg, readLabels(labels[:len(labels)-1]))
	c.Add("ReadIDXLabels: bytes after the data", arg, readLabels(append(slices.Clone(labels), 0)))
	fashion := func(img, lab []byte) func() error {
		return func() error {
			dir, err := os.MkdirTemp("", "fashion")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			for name, b := range map[string][]byte{"train-images-idx3-ubyte.gz": img, "train-labels-idx1-ubyte.gz": lab} {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					return err
				}
			}
			_, err = FashionMNIST(dir, 1)
			return err
		}
	}
	goodImages := gz(idxFile(idxUint8, []uint32{60000, 28, 28}, make([]float64, 784)))
	goodLabels := gz(idxFile(idxUint8, []uint32{60000}, []float64{3}))
	c.Add("FashionMNIST: images of 27×28", arg, fashion(gz(idxFile(idxUint8, []uint32{60000, 27, 28}, make([]float64, 27*28))), goodLabels))
	c.Add("FashionMNIST: 59999 images", arg, fashion(gz(idxFile(idxUint8, []uint32{59999, 28, 28}, make([]float64, 784))), goodLabels))
	c.Add("FashionMNIST: images of int8", arg, fashion(gz(idxFile(idxInt8, []uint32{60000, 28, 28}, make([]float64, 784))), goodLabels))
	c.Add("FashionMNIST: label 10", arg, fashion(goodImages, gz(idxFile(idxUint8, []uint32{60000}, []float64{10}))))
	c.Add("FashionMNIST: labels for images", arg, fashion(goodLabels, goodLabels))
	c.Add("FashionMNIST: images for labels", arg, fashion(goodImages, goodImages))
	c.Add("FashionMNIST: images cut", arg, fashion(goodImages[:30], goodLabels))
	c.Add("FashionMNIST: no labels", empty, fashion(goodImages, nil))
}

// TestFashionMNISTMissing: a directory without the files is an error that says how to
// install them, and wraps the error of os.Open.
func TestFashionMNISTMissing(t *testing.T) {
	_, err := FashionMNIST(t.TempDir(), 0)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "sudo apt-get install dataset-fashion-mnist") {
		t.Errorf("%v, want a missing file and how to install it", err)
	}
	if ks := errtest.KindsOf(err); ks != nil {
		t.Errorf("%v wraps %v", err, ks)
	}
}
