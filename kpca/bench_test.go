package kpca

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/native"
)

var benchSizes = flag.String("ikpca.sizes", "500,1000,2000",
	"comma-separated model sizes m for BenchmarkAdd")

// BenchmarkAdd times adding one point to a model of m MAGIC points (RBF kernel with the
// median heuristic), for every mode and method, against one m×m×m dgemm timed in every
// iteration (x-dgemm). deflated/step counts the components deflated by the step's
// updates: kernel matrices of real data deflate heavily, which makes a step cheaper than
// a dgemm. For method RankOne it includes the expansion step, in which every old
// component deflates trivially. In -short mode only m = 250.
func BenchmarkAdd(b *testing.B) {
	sizes := []int{250}
	if !testing.Short() {
		sizes = sizes[:0]
		for _, f := range strings.Split(*benchSizes, ",") {
			m, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || m < 2 {
				b.Fatalf("bad -ikpca.sizes entry %q", f)
			}
			sizes = append(sizes, m)
		}
	}
	b.Logf("backend %v", native.Active())
	for _, m := range sizes {
		x := points(b, "magic", m+1)
		k := rbfMedian(b, x)
		for _, opts := range allOptions {
			b.Run(fmt.Sprintf("%s/m=%d", name(opts), m), func(b *testing.B) {
				md, err := New(k, x.Slice(0, m, 0, 10), opts)
				if err != nil {
					b.Fatal(err)
				}
				md.Reserve(m + 1)
				saved := md.snapshot()
				y := yardstick.New(m)
				next := x.RawRowView(m)
				if err := md.Add(next); err != nil { // warm the workspaces
					b.Fatal(err)
				}
				deflated := 0
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					md.restore(saved)
					y.Dgemm()
					b.StartTimer()
					if err := md.Add(next); err != nil {
						b.Fatal(err)
					}
					deflated += md.Stats().Deflated
				}
				b.StopTimer()
				per := b.Elapsed() / time.Duration(b.N)
				b.ReportMetric(float64(y.MeanDgemm().Microseconds())/1000, "dgemm-ms")
				b.ReportMetric(float64(per)/float64(y.MeanDgemm()), "x-dgemm")
				b.ReportMetric(float64(deflated)/float64(b.N), "deflated/step")
			})
		}
	}
}
