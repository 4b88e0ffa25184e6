package data_test

import (
	"fmt"

	"github.com/ikpca/ikpca/data"
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
