//go:build cgo && openblas

package native

/*
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
*/
import "C"

import "sync"

// cores is the state of the phases in which Go owns the cores (ownCores): OpenBLAS is
// single-threaded while depth > 0, and threads is the count it had before, restored
// when the last of them ends.
var cores struct {
	sync.Mutex
	depth   int
	threads C.int
}

// ownCores gives the cores to Go for a loop of goroutines, each calling the backend on a
// piece of its own: it makes OpenBLAS single-threaded until the function it returns is
// called, so that the workers' calls run side by side rather than queue for OpenBLAS's
// threads (its threaded level-3 calls take one lock, level3_lock) and oversubscribe the
// cores. Also with one worker: OpenBLAS's threaded dgemm blocks a product differently
// and may round it differently in the last bit, and a loop's pieces are computed the
// same way whatever the number of goroutines. Phases may nest and overlap; OpenBLAS gets
// its thread count back when the last one ends. docs/design.md, "Who owns the cores".
func ownCores(int) (release func()) {
	spinOnce.Do(shortenSpin)
	cores.Lock()
	if cores.depth == 0 {
		cores.threads = C.openblas_get_num_threads()
		if cores.threads > 1 {
			C.openblas_set_num_threads(1)
		}
	}
	cores.depth++
	cores.Unlock()
	return releaseCores
}

func releaseCores() {
	cores.Lock()
	cores.depth--
	if cores.depth == 0 && cores.threads > 1 {
		C.openblas_set_num_threads(cores.threads)
	}
	cores.Unlock()
}

// configuredThreads returns OpenBLAS's thread count outside the phases Go owns.
func configuredThreads() int {
	cores.Lock()
	defer cores.Unlock()
	if cores.depth > 0 {
		return int(cores.threads)
	}
	return int(C.openblas_get_num_threads())
}
