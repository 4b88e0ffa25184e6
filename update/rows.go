package update

import (
	"math"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
)

// rowChunk is the number of rows of a chunk of the loops of rowJob: native's chunk of
// a split product (docs/design.md, "Who owns the cores").
const rowChunk = 512

// rowJob runs BorderBlock's loops over the rows of its n×b blocks on several
// goroutines (internal/parallel's shared workers), in chunks of rowChunk rows whatever
// the number of workers, so that their results do not depend on it: at n in the tens
// of thousands, these scans of the block — a copy and a check, the columns' norms —
// were a tenth of a tracked fit on one core, a part that does not shrink with more
// cores unless they share it too. Its loops are method values bound once, so that a
// block step allocates nothing once the job's scratch has grown.
type rowJob struct {
	team     parallel.Team
	dst, src blas64.General
	bad      atomic.Bool
	parts    []float64 // columnNorms: chunk i's sums of squares at i·cols
	copyFn   func(lo, hi int)
	normsFn  func(lo, hi int)
}

// chunks returns the number of chunks of n rows and the goroutines they run on.
func (j *rowJob) chunks(n int) (chunks, workers int) {
	chunks = (n + rowChunk - 1) / rowChunk
	return chunks, max(1, min(runtime.GOMAXPROCS(0), chunks))
}

// copyFinite copies src into dst (of its shape) and reports whether every value is
// finite.
func (j *rowJob) copyFinite(dst, src blas64.General) bool {
	if j.copyFn == nil {
		j.copyFn, j.normsFn = j.copyRows, j.normRows
	}
	j.dst, j.src = dst, src
	j.bad.Store(false)
	chunks, workers := j.chunks(dst.Rows)
	j.team.Run(workers, chunks, 1, j.copyFn)
	j.dst, j.src = blas64.General{}, blas64.General{}
	return !j.bad.Load()
}

func (j *rowJob) copyRows(lo, hi int) {
	d, s := j.dst, j.src
	ok := true
	for i := lo * rowChunk; i < min(hi*rowChunk, d.Rows); i++ {
		row := d.Data[i*d.Stride : i*d.Stride+d.Cols]
		copy(row, s.Data[i*s.Stride:i*s.Stride+d.Cols])
		ok = ok && vec.Finite(row)
	}
	if !ok {
		j.bad.Store(true)
	}
}

// columnNorms sets norms[c] to the Euclidean norm of column c of g and returns the
// largest: each chunk's sums of squares, then the chunks' sums added in their order.
func (j *rowJob) columnNorms(g blas64.General, norms []float64) float64 {
	if j.copyFn == nil {
		j.copyFn, j.normsFn = j.copyRows, j.normRows
	}
	chunks, workers := j.chunks(g.Rows)
	if cap(j.parts) < chunks*g.Cols {
		j.parts = make([]float64, chunks*g.Cols)
	}
	j.parts = j.parts[:chunks*g.Cols]
	j.src = g
	j.team.Run(workers, chunks, 1, j.normsFn)
	j.src = blas64.General{}
	clear(norms)
	for ch := range chunks {
		for c, v := range j.parts[ch*g.Cols : (ch+1)*g.Cols] {
			norms[c] += v
		}
	}
	var big float64
	for c := range norms {
		norms[c] = math.Sqrt(norms[c])
		big = math.Max(big, norms[c])
	}
	return big
}

func (j *rowJob) normRows(lo, hi int) {
	g := j.src
	for ch := lo; ch < hi; ch++ {
		part := j.parts[ch*g.Cols : (ch+1)*g.Cols]
		clear(part)
		for i := ch * rowChunk; i < min((ch+1)*rowChunk, g.Rows); i++ {
			for c, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
				part[c] += v * v
			}
		}
	}
}

// rawOf returns m's storage when it is a mat.RawMatrixer.
func rawOf(m mat.Matrix) (blas64.General, bool) {
	if raw, ok := m.(mat.RawMatrixer); ok {
		return raw.RawMatrix(), true
	}
	return blas64.General{}, false
}
