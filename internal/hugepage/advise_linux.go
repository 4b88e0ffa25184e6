package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeSize is the size of a transparent huge page on x86-64 and arm64 with 4 KiB pages.
const hugeSize = 2 << 20

// Advise asks the kernel to back the whole huge pages within x's capacity with
// transparent huge pages (madvise MADV_HUGEPAGE), if x holds at least 4 MiB: pages not
// yet touched are then faulted in 2 MiB at a time. It does nothing to the values, and
// nothing where the kernel refuses (transparent huge pages disabled, or a kernel
// without them): advice, not a requirement.
func Advise(x []float64) {
	n := uintptr(cap(x)) * 8
	if n < minBytes {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(x[:cap(x)]))
	start := (uintptr(p) + hugeSize - 1) &^ (hugeSize - 1)
	end := (uintptr(p) + n) &^ (hugeSize - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}

// mapFloats maps n float64s of zeros (mmap, anonymous and private) advised for huge
// pages, or returns nil.
func mapFloats(n int) ([]float64, func()) {
	if n <= 0 || n > (1<<62)/8 {
		return nil, nil
	}
	b, err := unix.Mmap(-1, 0, n*8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, nil
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	x := unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), n)
	return x, func() { _ = unix.Munmap(b) }
}
