package kaf_test

import (
	"fmt"
	"log"

	"github.com/ikpca/ikpca/kaf"
)

// The usual kernel adaptive filtering task: one-step prediction of the τ = 30
// Mackey–Glass series from its last 7 values, scaled to [−1, 1].
func ExampleMackeyGlass() {
	// Drop the first 50 samples (300 time units), the transient from the
	// constant history.
	s, err := kaf.MackeyGlass(1000, kaf.MackeyGlassOptions{Discard: 50})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("x(300), x(306), x(312) = %.4f %.4f %.4f\n", s[0], s[1], s[2])

	z, err := kaf.Standardise(s, -1, 1)
	if err != nil {
		log.Fatal(err)
	}
	X, y, err := kaf.Embed(z, 7, 1)
	if err != nil {
		log.Fatal(err)
	}
	r, c := X.Dims()
	fmt.Printf("inputs %d×%d, %d targets\n", r, c, len(y))
	fmt.Printf("first window %.3f → %.3f\n", X.RawRowView(0), y[0])
	// Output:
	// x(300), x(306), x(312) = 0.9474 0.8061 0.8281
	// inputs 993×7, 993 targets
	// first window [0.278 0.029 0.068 0.472 0.418 0.394 0.687] → 0.897
}
