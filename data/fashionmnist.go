package data

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// FashionMNISTDir is where Debian's package dataset-fashion-mnist puts the four
// Fashion-MNIST files, gzip-compressed IDX: train-images-idx3-ubyte.gz,
// train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz.
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

// fashionSide is the side of a Fashion-MNIST image, in pixels.
const fashionSide = 28

// fashionClasses name the labels 0–9 of Fashion-MNIST, as its authors do.
var fashionClasses = []string{
	"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
	"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
}

// fashionFeatures name the 784 columns "r1c1", …, "r28c28": the pixel's 1-based row
// and column in the image.
var fashionFeatures = func() []string {
	f := make([]string, 0, fashionSide*fashionSide)
	for i := range fashionSide {
		for j := range fashionSide {
			f = append(f, "r"+strconv.Itoa(i+1)+"c"+strconv.Itoa(j+1))
		}
	}
	return f
}()

// fashionParts are the two files of Fashion-MNIST, in the order FashionMNIST stacks them.
var fashionParts = []struct {
	images, labels string
	items          int
}{
	{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", 60000},
	{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", 10000},
}

// FashionMNIST reads the Fashion-MNIST data (H. Xiao, K. Rasul and R. Vollgraf,
// Zalando Research, 2017; MIT licence) from the directory dir, FashionMNISTDir if dir
// is "": its 60000 training images, then its 10000 test images, 28×28 grey levels each,
// as rows of 784 pixels divided by 255 (in [0, 1], row-major: column 28i+j is pixel
// (i, j), named "r{i+1}c{j+1}"). Labels holds the class of each row: "T-shirt/top",
// "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag" or "Ankle
// boot", the labels 0–9 of the files in that order; each class has 6000 training and
// 1000 test images. The Name is "fashion-mnist".
//
// n > 0 reads only the first n rows, reading no further in the files (the test files
// not at all for n ≤ 60000); n ≤ 0, or more than 70000, reads all. The pixels of all
// 70000 images take 439 MB.
//
// A missing file is an error that says how to install the package (sudo apt-get
// install dataset-fashion-mnist), wrapping the error of os.Open. A file that is not
// the expected IDX — another number of images, or images of another size, labels
// outside 0–9 — is ErrArgument; the errors of ReadIDX and ReadIDXLabels are returned
// wrapped with the file's path.
func FashionMNIST(dir string, n int) (Dataset, error) {
	if dir == "" {
		dir = FashionMNISTDir
	}
	total := 0
	for _, p := range fashionParts {
		total += p.items
	}
	if n <= 0 || n > total {
		n = total
	}
	var (
		pix    []byte
		labels []int
	)
	for _, p := range fashionParts {
		if n == 0 {
			break
		}
		m := min(n, p.items)
		b, y, err := readFashionFiles(filepath.Join(dir, p.images), filepath.Join(dir, p.labels), p.items, m)
		if err != nil {
			return Dataset{}, err
		}
		if pix == nil {
			pix, labels = b, y // the training part: no copy
		} else {
			pix, labels = append(pix, b...), append(labels, y...)
		}
		n -= m
	}
	return fashionDataset("fashion-mnist", pix, labels), nil
}

// readFashionFiles reads the first m images and labels of one part of Fashion-MNIST,
// whose files hold items of each.
func readFashionFiles(images, labels string, items, m int) ([]byte, []int, error) {
	open := func(path string) (*os.File, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("data: fashion-mnist: %w (Debian's package dataset-fashion-mnist installs the files in %s: sudo apt-get install dataset-fashion-mnist)", err, FashionMNISTDir)
		}
		return f, nil
	}
	fi, err := open(images)
	if err != nil {
		return nil, nil, err
	}
	defer fi.Close()
	fl, err := open(labels)
	if err != nil {
		return nil, nil, err
	}
	defer fl.Close()
	return readFashion(fi, fl, images, labels, items, m)
}

// readFashion reads the first m images and labels of Fashion-MNIST from two IDX
// streams of items images and labels each, named in messages by the two names. It
// returns the pixels as they are stored, one byte each, and checks every size and
// label.
func readFashion(images, labels io.Reader, imagesName, labelsName string, items, m int) ([]byte, []int, error) {
	x, err := newIDXReader(images, IDXOptions{Limit: m}, imagesName)
	if err != nil {
		return nil, nil, err
	}
	want := []int{items, fashionSide, fashionSide}
	if x.typ != idxUint8 || !slices.Equal(x.dims, want) {
		return nil, nil, fmt.Errorf("%w: idx: %s: %s elements of sizes %v, want unsigned bytes of sizes %v", ErrArgument, imagesName, idxTypes[x.typ].name, x.dims, want)
	}
	pix, err := x.rest()
	if err != nil {
		return nil, nil, err
	}
	y, err := readIDXLabels(labels, IDXOptions{Limit: m}, labelsName)
	if err != nil {
		return nil, nil, err
	}
	if len(y) != m {
		return nil, nil, fmt.Errorf("%w: idx: %s: %d labels for %d images", ErrArgument, labelsName, len(y), m)
	}
	for i, v := range y {
		if v < 0 || v >= len(fashionClasses) {
			return nil, nil, fmt.Errorf("%w: idx: %s: label %d of item %d is not a class 0–9", ErrArgument, labelsName, v, i+1)
		}
	}
	return pix, y, nil
}

// fashionDataset makes a Dataset of the pixels (one byte each, 784 an image) and the
// labels 0–9, with the pixels divided by 255.
func fashionDataset(name string, pix []byte, labels []int) Dataset {
	w := fashionSide * fashionSide
	X := mat.NewDense(len(labels), w, nil)
	raw := X.RawMatrix().Data
	for i, b := range pix {
		raw[i] = pixel[b]
	}
	names := make([]string, len(labels))
	for i, v := range labels {
		names[i] = fashionClasses[v]
	}
	return Dataset{Name: name, X: X, Features: slices.Clone(fashionFeatures), Labels: names}
}

// The sample is the first 1000 images of Fashion-MNIST's test file and their labels,
// as IDX files (the header says 1000 items) compressed with gzip -9 -n: 784 016 bytes
// shrink to 440 055. See README.md.

//go:embed fashion-t10k-1000-images-idx3-ubyte.gz
var fashionSampleImages string

//go:embed fashion-t10k-1000-labels-idx1-ubyte.gz
var fashionSampleLabels string

// fashionSampleItems is the number of images in the sample.
const fashionSampleItems = 1000

var fashionSample = embedded[Dataset]{file: "fashion-t10k-1000-images-idx3-ubyte.gz", parse: func() (Dataset, error) {
	pix, y, err := readFashion(strings.NewReader(fashionSampleImages), strings.NewReader(fashionSampleLabels),
		"fashion-t10k-1000-images-idx3-ubyte.gz", "fashion-t10k-1000-labels-idx1-ubyte.gz", fashionSampleItems, fashionSampleItems)
	if err != nil {
		return Dataset{}, err
	}
	return fashionDataset("fashion-mnist-sample", pix, y), nil
}}

// FashionMNISTSample returns the first 1000 test images of Fashion-MNIST (see
// FashionMNIST), embedded in the package: 1000 rows × 784 pixels in [0, 1], with
// Labels holding each image's class (every class has 87 to 115 images). They are the
// first 1000 rows of FashionMNIST's test part, rows 60000–60999 of FashionMNIST("", 0).
// The Name is "fashion-mnist-sample".
//
// The embedded files are decompressed and parsed once; each call returns a fresh deep
// copy, so callers may modify it.
func FashionMNISTSample() Dataset { return fashionSample.must().clone() }
