package kpca_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// spectrum is the 2-spectrum kernel of two words (Leslie, Eskin and Noble 2002): the
// inner product of their counts of letter pairs, "kernel" and "colonel" sharing "ne"
// and "el". A kernel on strings, with values and no coordinates.
func spectrum(a, b string) float64 {
	count := map[string]float64{}
	for i := 0; i+2 <= len(a); i++ {
		count[a[i:i+2]]++
	}
	var k float64
	for i := 0; i+2 <= len(b); i++ {
		k += count[b[i:i+2]]
	}
	return k
}

// A string kernel streamed by columns: each word is added by its kernel values against
// the words the model holds and its own, forgotten by its column (RemoveColumn), and
// new words are scored by their kernel rows — what scikit-learn does with
// kernel="precomputed", but incrementally and exactly.
func ExampleModel_AddColumn() {
	words := []string{"kernel", "kernels", "colonel", "tunnel", "eigen", "eigenvalue",
		"value", "valve", "vector", "vectors", "sector"}
	md, err := kpca.New(kernel.Precomputed{}, 0, kpca.Options{Components: 2})
	if err != nil {
		log.Fatal(err)
	}
	var held []string // the words the model holds, in the order of its indices
	column := func(w string) []float64 {
		col := make([]float64, len(held))
		for j, h := range held {
			col[j] = spectrum(h, w)
		}
		return col
	}
	for _, w := range words {
		if err := md.AddColumn(column(w), spectrum(w, w)); err != nil {
			log.Fatal(err)
		}
		held = append(held, w)
	}
	// Forget "tunnel", exactly, by its column.
	if err := md.RemoveColumn(3, column("tunnel")); err != nil {
		log.Fatal(err)
	}
	held = append(held[:3], held[4:]...)
	fmt.Printf("%d words, top eigenvalues %.3f\n", md.Len(), md.Values(nil)[:2])

	// New words, by their kernel rows against the words held.
	queries := []string{"vectorial", "kernelled", "evaluate"}
	rows := mat.NewDense(len(queries), md.Len(), nil)
	for i, q := range queries {
		rows.SetRow(i, column(q))
	}
	var scores mat.Dense
	if err := md.Transform(&scores, rows, 2); err != nil {
		log.Fatal(err)
	}
	for i, q := range queries {
		fmt.Printf("%-9s %6.3f\n", q, scores.RawRowView(i))
	}
	// Output:
	// 10 words, top eigenvalues [13.521 12.508]
	// vectorial [ 1.445 -0.676]
	// kernelled [-0.442  1.719]
	// evaluate  [-0.679 -0.577]
}
