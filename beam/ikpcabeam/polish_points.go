package ikpcabeam

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/gob"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/ikpca/ikpca/beam/sharded"
)

// The points of a Polish, written once into shard files and read by every pass
// (docs/design.md, "Polish and Certify over sharded points"): a point's shard is its
// identity (PointID) modulo the number of shards; each bundle writes, per shard it saw,
// a file of its points, and emits the file's name; the names — a side input, built from
// committed outputs only, so that a retried bundle's orphan files are never read — are
// how the later steps find a shard's points. No step groups the points: they are
// written where they are read from the input, and a tile reads its two shards' files.
func init() {
	register.DoFn3x1[context.Context, Point, func(string), error](&shardPointsFn{})
	register.Emitter1[string]()
}

// idSeed seeds the points' identities, so that they differ from the hashes that sample
// landmarks with seed 0.
const idSeed = 0x1d5eed

// PointID is a point's identity in a Polish: the hash of what identifies its record
// within the decompressed text of its file, its byte offset there and its coordinates
// (not the file's name or place), so that the same records give the same shards and the
// same start wherever they lie. A one-process fit from the same start takes the rows
// sharded.StartRow(row, seed, PointID(p)).
func PointID(p Point) uint64 { return pointHash(p, idSeed) }

// flushPoints is the number of a shard's points a bundle holds before it writes them to
// a file: a bundle's memory is at most shards × flushPoints points.
const flushPoints = 8192

// shardPointsFn writes each bundle's points to files per shard in Dir and emits their
// names.
type shardPointsFn struct {
	Dir    string
	Shards int

	buf [][]Point
}

// ProcessElement adds a point to its shard's buffer, writing the buffer when it is full.
func (fn *shardPointsFn) ProcessElement(ctx context.Context, p Point, emit func(string)) error {
	if fn.buf == nil {
		fn.buf = make([][]Point, fn.Shards)
	}
	s := int(PointID(p) % uint64(fn.Shards))
	fn.buf[s] = append(fn.buf[s], p)
	if len(fn.buf[s]) < flushPoints {
		return nil
	}
	return fn.write(ctx, s, emit)
}

// FinishBundle writes what the buffers hold.
func (fn *shardPointsFn) FinishBundle(ctx context.Context, emit func(string)) error {
	for s := range fn.buf {
		if len(fn.buf[s]) > 0 {
			if err := fn.write(ctx, s, emit); err != nil {
				return err
			}
		}
	}
	return nil
}

// write writes shard s's buffer to a new file and emits its name.
func (fn *shardPointsFn) write(ctx context.Context, s int, emit func(string)) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(fn.buf[s]); err != nil {
		return err
	}
	name := fmt.Sprintf("%s/shard-%05d-%s.gob", fn.Dir, s, rand.Text())
	if err := writeWhole(ctx, name, b.Bytes()); err != nil {
		return err
	}
	clear(fn.buf[s])
	fn.buf[s] = fn.buf[s][:0]
	emit(name)
	return nil
}

// writeWhole writes data to the file name.
func writeWhole(ctx context.Context, name string, data []byte) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return fmt.Errorf("ikpcabeam: writing %s: %w", name, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("ikpcabeam: writing %s: %w", name, err)
	}
	return nil
}

// shardOfFile returns the shard a points file holds, from its name.
func shardOfFile(name string) (int, bool) {
	base := path.Base(name)
	if !strings.HasPrefix(base, "shard-") || len(base) < 11 {
		return 0, false
	}
	s, err := strconv.Atoi(base[6:11])
	return s, err == nil
}

// shardPoints is a shard's points in its fixed order, and their identities.
type shardPoints struct {
	points []Point
	X      sharded.Matrix
	ids    []uint64
}

// shardCache keeps the last few shards a process read, so that a worker that computes
// several tiles of a shard, or the passes of a tile, reads its files once.
var shardCache struct {
	sync.Mutex
	keys   []string
	shards []*shardPoints
}

// cachedShards is the number of shards shardCache keeps: a tile needs two.
const cachedShards = 4

// readShard returns shard s's points, from the files among names that hold it, in the
// shard's fixed order: by identity, then offset, coordinates and source (points equal
// in all of these are interchangeable). dim is the points' dimension.
func readShard(ctx context.Context, dir string, names []string, s, dim int) (*shardPoints, error) {
	key := dir + "\x00" + strconv.Itoa(s)
	shardCache.Lock()
	for i, k := range shardCache.keys {
		if k == key {
			sp := shardCache.shards[i]
			shardCache.Unlock()
			return sp, nil
		}
	}
	shardCache.Unlock()
	sp := &shardPoints{}
	for _, name := range names {
		if t, ok := shardOfFile(name); !ok || t != s {
			continue
		}
		var pts []Point
		if err := readWhole(ctx, name, func(r io.Reader) error { return gob.NewDecoder(r).Decode(&pts) }); err != nil {
			return nil, fmt.Errorf("ikpcabeam: reading the points of shard %d from %s: %w", s, name, err)
		}
		sp.points = append(sp.points, pts...)
	}
	if err := sp.order(s, dim); err != nil {
		return nil, err
	}
	shardCache.Lock()
	shardCache.keys = append(shardCache.keys, key)
	shardCache.shards = append(shardCache.shards, sp)
	if len(shardCache.keys) > cachedShards {
		shardCache.keys = shardCache.keys[1:]
		shardCache.shards = shardCache.shards[1:]
	}
	shardCache.Unlock()
	return sp, nil
}

// readWhole opens the file name and hands it to read.
func readWhole(ctx context.Context, name string, read func(io.Reader) error) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return err
	}
	defer r.Close()
	return read(r)
}

// order puts a shard's points in the shard's fixed order — by identity, then offset,
// coordinates and source (points equal in all of these are interchangeable) — and sets
// X and the identities from them.
func (sp *shardPoints) order(s, dim int) error {
	type keyed struct {
		id uint64
		p  Point
	}
	ks := make([]keyed, len(sp.points))
	for i, p := range sp.points {
		if len(p.X) != dim {
			return fmt.Errorf("ikpcabeam: shard %d holds a point of dimension %d, not %d", s, len(p.X), dim)
		}
		ks[i] = keyed{PointID(p), p}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.id, b.id), cmp.Compare(a.p.Offset, b.p.Offset), slices.Compare(a.p.X, b.p.X),
			cmp.Compare(a.p.Source, b.p.Source), cmp.Compare(a.p.Line, b.p.Line))
	})
	sp.X = sharded.Matrix{Rows: len(ks), Cols: dim, Data: make([]float64, len(ks)*dim)}
	sp.ids = make([]uint64, len(ks))
	for i, k := range ks {
		sp.points[i] = k.p
		sp.ids[i] = k.id
		copy(sp.X.Data[i*dim:], k.p.X)
	}
	return nil
}

// RemoveWork removes a Polish's work directory (Polished.Work) and its point files,
// once the job is over.
func RemoveWork(ctx context.Context, dir string) error {
	fs, err := filesystem.New(ctx, dir)
	if err != nil {
		return err
	}
	defer fs.Close()
	return removeTemps(ctx, fs, dir)
}
