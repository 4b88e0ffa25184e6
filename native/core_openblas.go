//go:build cgo && openblas

package native

/*
#cgo linux LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

char* openblas_get_corename(void);
char* openblas_get_config(void);
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);

// OpenBLAS's run-time core choice, exported by a DYNAMIC_ARCH build only: looked up at
// run time, so that a binary linked against another build still links and runs.
static void (*ikpca_dynamic_init)(void);
static void (*ikpca_dynamic_quit)(void);

// ikpca_find_dynamic looks the two functions up in the process's global symbols and
// reports whether both are there.
static int ikpca_find_dynamic(void) {
	void *self = dlopen(NULL, RTLD_NOW);
	if (self == NULL) {
		return 0;
	}
	ikpca_dynamic_init = (void (*)(void))dlsym(self, "gotoblas_dynamic_init");
	ikpca_dynamic_quit = (void (*)(void))dlsym(self, "gotoblas_dynamic_quit");
	return ikpca_dynamic_init != NULL && ikpca_dynamic_quit != NULL;
}

// ikpca_load_core makes OpenBLAS choose its kernels again, with OPENBLAS_CORETYPE=name
// during the choice (by its own detection if name is NULL), and leaves the variable
// unset: the C environment is the one children inherit through C, and Go's copy never
// saw the variable. It reports whether OpenBLAS can choose again at all.
static int ikpca_load_core(const char *name) {
	if ((ikpca_dynamic_init == NULL || ikpca_dynamic_quit == NULL) && !ikpca_find_dynamic()) {
		return 0;
	}
	ikpca_dynamic_quit();
	if (name != NULL) {
		setenv("OPENBLAS_CORETYPE", name, 1);
	} else {
		unsetenv("OPENBLAS_CORETYPE");
	}
	ikpca_dynamic_init();
	unsetenv("OPENBLAS_CORETYPE");
	return 1;
}

// ikpca_coretype returns OPENBLAS_CORETYPE in the C environment, or NULL.
static const char *ikpca_coretype(void) { return getenv("OPENBLAS_CORETYPE"); }

#if defined(__x86_64__)
#include <cpuid.h>
// ikpca_cpu_vendor writes CPUID's 12-byte vendor string, or an empty one.
static void ikpca_cpu_vendor(char *v) {
	unsigned int a, b, c, d;
	v[0] = 0;
	if (!__get_cpuid(0, &a, &b, &c, &d)) {
		return;
	}
	memcpy(v, &b, 4);
	memcpy(v + 4, &d, 4);
	memcpy(v + 8, &c, 4);
	v[12] = 0;
}
#else
static void ikpca_cpu_vendor(char *v) { v[0] = 0; }
#endif
*/
import "C"

import (
	"os"
	"strings"
	"sync"
	"unsafe"

	netblas "gonum.org/v1/netlib/blas/netlib"
)

var (
	// coreOnce runs pickCore once per process, before the first OpenBLAS call
	// (shortenSpin), and coreResult holds its report.
	coreOnce   sync.Once
	coreResult CoreReport
)

// pickCore chooses OpenBLAS's core (chooseCore) for this process. It runs inside
// spinOnce, before any OpenBLAS call of the package, so it calls OpenBLAS directly
// (openblasLoader), never through the package's functions.
func pickCore() {
	coreResult = chooseCore(hostCoreInput(), openblasLoader{})
}

// coreReport returns the report, making the first-call setup if it has not run.
func coreReport() CoreReport {
	spinOnce.Do(shortenSpin)
	return coreResult
}

// hostCoreInput gathers decideCore's input from the environment, OpenBLAS and the CPU.
func hostCoreInput() coreInput {
	coreType, set := os.LookupEnv("OPENBLAS_CORETYPE")
	if v, cset := cCoreType(); !set && cset {
		coreType, set = v, true // set by C code in the process
	}
	return coreInput{
		coreType: coreType, coreTypeSet: set,
		choice:  os.Getenv(CoreEnv),
		found:   openblasCore(),
		version: openblasVersion(C.GoString(C.openblas_get_config())),
		cpu:     hostCPU(cpuVendor()),
		dynamic: openblasDynamic(),
	}
}

// cCoreType returns OPENBLAS_CORETYPE in the C environment, which OpenBLAS reads.
func cCoreType() (string, bool) {
	p := C.ikpca_coretype()
	if p == nil {
		return "", false
	}
	return C.GoString(p), true
}

// cpuVendor returns CPUID's vendor string, "" off x86-64.
func cpuVendor() string {
	var vendor [13]C.char
	C.ikpca_cpu_vendor(&vendor[0])
	return C.GoString(&vendor[0])
}

// openblasDynamic reports whether the linked OpenBLAS exports gotoblas_dynamic_init and
// gotoblas_dynamic_quit, which a DYNAMIC_ARCH build does.
func openblasDynamic() bool { return C.ikpca_find_dynamic() != 0 }

// openblasCore returns the core OpenBLAS uses (openblas_get_corename).
func openblasCore() string {
	return strings.TrimSpace(C.GoString(C.openblas_get_corename()))
}

// openblasVersion returns the version in openblas_get_config's "OpenBLAS 0.3.21 …".
func openblasVersion(config string) string {
	f := strings.Fields(config)
	if len(f) >= 2 && f[0] == "OpenBLAS" {
		return f[1]
	}
	return ""
}

// openblasLoader is the coreLoader of the linked OpenBLAS. load is called only when
// decideCore found gotoblas_dynamic_init and _quit.
type openblasLoader struct{}

func (openblasLoader) core() string { return openblasCore() }

func (openblasLoader) load(name string) {
	if name == "" {
		C.ikpca_load_core(nil)
		return
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	C.ikpca_load_core(cs)
}

func (openblasLoader) ops() coreOps {
	return coreOps{dgemm: netblas.Implementation{}.Dgemm, dsyevd: columnsDsyevd}
}

func (openblasLoader) rate() float64 { return dgemmRate(netblas.Implementation{}.Dgemm, coreRateN) }

func (openblasLoader) oneThread() func() {
	threads := C.openblas_get_num_threads()
	C.openblas_set_num_threads(1)
	return func() { C.openblas_set_num_threads(threads) }
}

// columnsDsyevd is dsyevd with vectors as eigenSym calls it (dsyevdRows): in LAPACK's
// column-major layout, the vectors then transposed into the columns of a.
func columnsDsyevd(n int, a []float64, lda int, w []float64) bool {
	var ws lapackWork
	return dsyevdRows(n, a, lda, w, true, &ws) == nil
}
