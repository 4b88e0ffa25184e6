//go:build !unix

package main

import "time"

// processCPU returns 0: the processor time of the process is read with getrusage, on
// unix only. --timings then reports wall times alone.
func processCPU() time.Duration { return 0 }
