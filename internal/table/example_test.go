package table_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ikpca/ikpca/internal/table"
)

func ExampleRead() {
	in := `id,height,weight
a, 1.80, 75

b, 1.65, 60.5
`
	t, err := table.Read(strings.NewReader(in), table.Options{Name: "people.csv", Columns: "2-"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Names, t.Lines)
	if err := table.Write(os.Stdout, t.Names, t.X, 0); err != nil {
		fmt.Println(err)
	}

	// Without a column selection the id column is an error.
	_, err = table.Read(strings.NewReader(in), table.Options{Name: "people.csv"})
	fmt.Println(err)
	// Output:
	// [height weight] [2 4]
	// height,weight
	// 1.8,75
	// 1.65,60.5
	// people.csv:2: column 1 ("id"): "a" is not a number; select numeric columns with --columns
}
