package data_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ikpca/ikpca/data"
	"gonum.org/v1/gonum/mat"
)

// The first 10 000 rows of the MAGIC data, without the class column, are the
// set used by Hallgren & Northrop; they are all of class g.
func ExampleMagic() {
	d := data.Magic()
	r, c := d.X.Dims()
	fmt.Println(d.Name, r, c)
	fmt.Println(d.Features[0], d.X.At(0, 0), d.Labels[0])

	sub := d.X.Slice(0, 10000, 0, c)
	sr, _ := sub.Dims()
	fmt.Println("subset rows:", sr, "last label:", d.Labels[sr-1])
	// Output:
	// magic 19020 10
	// fLength 28.7967 g
	// subset rows: 10000 last label: g
}

// CPUAct is a regression data set: the target is returned separately.
func ExampleCPUAct() {
	d := data.CPUAct()
	y := data.CPUActTarget()
	r, c := d.X.Dims()
	fmt.Println(d.Name, r, c, len(y), d.Labels == nil)
	fmt.Println(d.Features[0], d.X.At(0, 0), "usr", y[0])
	// Output:
	// cpu_act 8192 21 8192 true
	// lread 6 usr 90
}

func ExampleParseLIBSVM() {
	in := "+1 1:0.5 3:2\n-1 2:1\n"
	X, y, err := data.ParseLIBSVM(strings.NewReader(in), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mat.Formatted(X), y)

	_, _, err = data.ParseLIBSVM(strings.NewReader("+1 2:1 1:1\n"), 0)
	fmt.Println(err)
	// Output:
	// ⎡0.5    0    2⎤
	// ⎣  0    1    0⎦ [1 -1]
	// data: invalid argument: libsvm: line 1: index 1 does not follow 2 (indices must be strictly ascending)
}

// The a9a test file never uses feature 123; A9ATest still has 123 columns.
func ExampleA9ATest() {
	train, test := data.A9A(), data.A9ATest()
	_, c1 := train.X.Dims()
	r2, c2 := test.X.Dims()
	fmt.Println(c1, c2, r2, test.Labels[0])
	// Output:
	// 123 123 16281 -1
}

// An IDX file of two 2×2 images of unsigned bytes: each image is a row, its pixels
// divided by 255. A file of labels is one-dimensional.
func ExampleReadIDX() {
	file := []byte{
		0, 0, 0x08, 3, // unsigned bytes, 3 dimensions
		0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, // 2 images of 2×2
		0, 51, 102, 255,
		255, 0, 0, 0,
	}
	X, err := data.ReadIDX(bytes.NewReader(file), data.IDXOptions{})
	fmt.Println(mat.Formatted(X), err)

	labels := []byte{0, 0, 0x08, 1, 0, 0, 0, 2, 9, 4}
	y, err := data.ReadIDXLabels(bytes.NewReader(labels), data.IDXOptions{})
	fmt.Println(y, err)
	_, err = data.ReadIDX(bytes.NewReader(labels), data.IDXOptions{})
	fmt.Println(err)
	// Output:
	// ⎡  0  0.2  0.4    1⎤
	// ⎣  1    0    0    0⎦ <nil>
	// [9 4] <nil>
	// data: invalid argument: idx: a one-dimensional file of 2 items (labels?) where items of two or more dimensions (images) are expected
}

// The embedded sample of Fashion-MNIST: the first 1000 test images.
func ExampleFashionMNISTSample() {
	d := data.FashionMNISTSample()
	r, c := d.X.Dims()
	fmt.Println(d.Name, r, c, d.Features[0], d.Features[c-1], d.Labels[0], d.Labels[1])
	// Output:
	// fashion-mnist-sample 1000 784 r1c1 r28c28 Ankle boot Pullover
}
