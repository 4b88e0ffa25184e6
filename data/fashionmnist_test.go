package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fashionBytes returns the pixels of X as the bytes they were read from: v·255 is
// within a rounding of an integer, since v is the correctly rounded quotient b/255.
func fashionBytes(t *testing.T, X mat.Matrix) []int {
	t.Helper()
	r, c := X.Dims()
	b := make([]int, 0, r*c)
	fashionEach(t, X, func(p int) { b = append(b, p) })
	return b
}

// fashionEach calls f with each pixel of X as the byte it was read from, in row-major
// order, after checking that it is one: a byte divided by 255.
func fashionEach(t *testing.T, X mat.Matrix, f func(p int)) {
	t.Helper()
	r, c := X.Dims()
	for i := range r {
		for j := range c {
			v := X.At(i, j)
			p := math.Round(v * 255)
			if v < 0 || v > 1 || p/255 != v {
				t.Fatalf("pixel (%d, %d) = %v is not a byte divided by 255", i, j, v)
			}
			f(int(p))
		}
	}
}

// classCounts counts the labels of each class, in the order of fashionClasses.
func classCounts(labels []string) []int {
	n := make([]int, len(fashionClasses))
	for _, l := range labels {
		n[slices.Index(fashionClasses, l)]++
	}
	return n
}

// TestFashionMNISTSample: the embedded sample is the first 1000 test images of the
// Debian files, byte for byte (the SHA-256 of the decompressed files, listed in
// README.md), with their labels.
func TestFashionMNISTSample(t *testing.T) {
	for _, f := range []struct{ gz, sha string }{
		{fashionSampleImages, "7a6d8e07ea021ec5bc73135ebd0a5770799557ec6f8242d8749c4f32a3cf4643"},
		{fashionSampleLabels, "b40abac7ec8228f434940f579deb7cf7b6e3103b5274cb91d1545771f5ef1c8b"},
	} {
		b, err := gunzip(f.gz)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.sha {
			t.Errorf("sha256 %x, want %s", sum, f.sha)
		}
	}
	if _, err := fashionSample.load(); err != nil {
		t.Fatalf("the sample does not parse: %v", err)
	}
	d := FashionMNISTSample()
	if r, c := d.X.Dims(); r != 1000 || c != 784 || len(d.Labels) != 1000 || d.Name != "fashion-mnist-sample" || d.Features[0] != "r1c1" || d.Features[783] != "r28c28" || d.Features[28] != "r2c1" {
		t.Fatalf("%d×%d, %d labels, name %q, features %q…%q", r, c, len(d.Labels), d.Name, d.Features[0], d.Features[783])
	}
	px := fashionBytes(t, d.X)
	// The first test image (an ankle boot): the sum of its bytes and a pixel of its
	// centre, read from the file with another tool (Python's gzip module).
	sum := 0
	for _, v := range px[:784] {
		sum += v
	}
	if sum != 33456 || px[14*28+14] != 110 || px[215] != 3 || px[216] != 1 {
		t.Errorf("image 1: sum %d, pixel (14, 14) %d, pixels 215, 216: %d %d", sum, px[14*28+14], px[215], px[216])
	}
	if got := d.Labels[:4]; !slices.Equal(got, []string{"Ankle boot", "Pullover", "Trouser", "Trouser"}) {
		t.Errorf("labels %q", got)
	}
	if got, want := classCounts(d.Labels), []int{107, 105, 111, 93, 115, 87, 97, 95, 95, 95}; !slices.Equal(got, want) {
		t.Errorf("class counts %v, want %v", got, want)
	}
	a := FashionMNISTSample()
	a.X.Set(0, 0, 7)
	a.Labels[0] = "x"
	if b := FashionMNISTSample(); b.X.At(0, 0) != 0 || b.Labels[0] != "Ankle boot" {
		t.Error("modifying a result changed the next call's")
	}
}

// fashionFiles skips the test when Debian's files are not installed.
func fashionFiles(t testing.TB) {
	t.Helper()
	for _, p := range fashionParts {
		for _, f := range []string{p.images, p.labels} {
			if _, err := os.Stat(filepath.Join(FashionMNISTDir, f)); errors.Is(err, fs.ErrNotExist) {
				t.Skipf("%s is not installed: sudo apt-get install dataset-fashion-mnist", filepath.Join(FashionMNISTDir, f))
			}
		}
	}
}

// TestFashionMNIST: Debian's files read to the published shape — 60000 training images,
// then 10000 test images, 784 pixels in [0, 1] each, 6000 and 1000 of each class — with
// pixels and labels checked against values read with another tool (Python's gzip
// module): the sum of all the training bytes, the first pixels of the first image, the
// first labels. The test images begin with the embedded sample. With -short, only the
// first rows and the last training images are read.
func TestFashionMNIST(t *testing.T) {
	fashionFiles(t)
	if testing.Short() {
		d, err := FashionMNIST("", 2000)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := d.X.Dims(); r != 2000 || c != 784 || d.Name != "fashion-mnist" {
			t.Fatalf("n = 2000: %d×%d %q", r, c, d.Name)
		}
		px := fashionBytes(t, d.X.Slice(0, 1, 0, 784))
		if px[96] != 1 || px[99] != 13 || px[100] != 73 {
			t.Errorf("first image: pixels 96, 99, 100 = %d %d %d", px[96], px[99], px[100])
		}
		return
	}
	d, err := FashionMNIST("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := d.X.Dims(); r != 70000 || c != 784 || len(d.Labels) != 70000 {
		t.Fatalf("%d×%d, %d labels", r, c, len(d.Labels))
	}
	train, test := d.X.Slice(0, 60000, 0, 784), d.X.Slice(60000, 70000, 0, 784)
	sum, lo, hi := 0, 255, 0
	fashionEach(t, train, func(p int) { sum += p })
	fashionEach(t, test, func(p int) { lo, hi = min(lo, p), max(hi, p) })
	px := fashionBytes(t, train.(*mat.Dense).Slice(0, 1, 0, 784))
	if sum != 3431114169 || px[96] != 1 || px[99] != 13 || px[100] != 73 {
		t.Errorf("training bytes: sum %d, first image's pixels 96, 99, 100 = %d %d %d", sum, px[96], px[99], px[100])
	}
	if lo != 0 || hi != 255 {
		t.Errorf("test bytes in [%d, %d]", lo, hi)
	}
	for _, part := range []struct {
		labels []string
		first  []int
		each   int
	}{{d.Labels[:60000], []int{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}, 6000}, {d.Labels[60000:], []int{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}, 1000}} {
		for i, c := range part.first {
			if part.labels[i] != fashionClasses[c] {
				t.Errorf("label %d: %q, want %q", i, part.labels[i], fashionClasses[c])
			}
		}
		if got := classCounts(part.labels); slices.Min(got) != part.each || slices.Max(got) != part.each {
			t.Errorf("class counts %v, want %d each", got, part.each)
		}
	}
	s := FashionMNISTSample()
	if !mat.Equal(s.X, d.X.Slice(60000, 61000, 0, 784)) || !slices.Equal(s.Labels, d.Labels[60000:61000]) {
		t.Error("the sample is not the first 1000 test images")
	}
	// n reads the first rows, into the test part; d is let go first, to hold one copy of
	// the data at a time.
	tail, tailLabels := mat.DenseCopyOf(d.X.Slice(59000, 60500, 0, 784)), d.Labels[59000:60500]
	d, train, test = Dataset{}, nil, nil
	runtime.GC()
	h, err := FashionMNIST(FashionMNISTDir, 60500)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := h.X.Dims(); r != 60500 || !mat.Equal(h.X.Slice(59000, 60500, 0, 784), tail) || !slices.Equal(h.Labels[59000:], tailLabels) {
		t.Error("n = 60500: not the first 60500 rows")
	}
}

// BenchmarkFashionMNIST reads the 70000 images of Debian's files, and the first 10000.
func BenchmarkFashionMNIST(b *testing.B) {
	fashionFiles(b)
	for _, n := range []int{10000, 70000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				if _, err := FashionMNIST("", n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
