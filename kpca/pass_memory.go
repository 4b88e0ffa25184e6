package kpca

// The kernel values a pass keeps for the later passes of its Polish or Certify, which
// read them instead of computing them again (docs/design.md, "Passes over the points"):
// how many tiles, and the memory's release. The values read are the values computed,
// bit for bit, so the memory changes the time and never the result.

// DefaultPassMemory is the memory a Polish or a Certify may give to the kernel values of
// its first pass, for its later passes to read rather than compute again, when
// Options.PassMemory is zero: 2 GiB, the upper triangle of K at up to 23,000 points.
const DefaultPassMemory = 2 << 30

// passMemoryDim is the least dimension of the points for which a pass keeps kernel
// values computed from a matrix product of the points (kernel.Cross.ByProducts): below
// it a value costs hardly more to compute again — 2·d flops and an exponential — than
// to read back from memory first touched for it. On all of MAGIC (d = 10) a Polish of
// 4 passes took 5.2–5.4 s keeping nothing and 6.4–6.9 s keeping the whole triangle; at
// 10,000 Fashion-MNIST images (d = 784) a pass that reads its values took 0.2 s against
// 2.1 s for one that computes them.
const passMemoryDim = 64

// cacheTiles returns how many of the tiles of a pass over m points, in tiles of order
// tile, the passer keeps (docs/design.md, "Passes over the points"): none if the kernel's
// values are cheap to compute again (a kernel of products, kernel.Cross.ByProducts, on
// points of fewer than passMemoryDim coordinates), otherwise the first of the schedule,
// as many as Options.PassMemory holds (DefaultPassMemory when zero) — if they are at
// least a quarter of all, or none: a few would save little of each pass for memory
// that the bounded models are chosen to save (at 70,000 Fashion-MNIST images, 2 GiB
// holds a tenth of the tiles).
func (p *passer) cacheTiles(m, tile int) int {
	if p.cross.ByProducts() && p.md.d < passMemoryDim {
		return 0
	}
	budget := p.md.opts.PassMemory
	if budget == 0 {
		budget = DefaultPassMemory
	}
	nb := (m + tile - 1) / tile
	tiles := nb * (nb + 1) / 2
	fit := min(tiles, budget/8/(tile*tile))
	if 4*fit < tiles {
		return 0
	}
	return fit
}

// release gives back the memory of the kept kernel values: a Polish or a Certify calls it
// when its passes are done, so that the next one does not hold its own beside them.
func (p *passer) release() {
	if p.unmap != nil {
		p.unmap()
	}
	p.cache, p.unmap, p.cached, p.filled, p.tile = nil, nil, 0, false, 0
	p.adopted, p.unshifted = nil, false
}
