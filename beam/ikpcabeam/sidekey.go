package ikpcabeam

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// sideKey remembers which bytes of a side input a DoFn instance last decoded, by their
// length and hash, so that it decodes a model once per instance rather than once per
// bundle: a runner hands every bundle the side input again, and decoding validates the
// model — O(r³) for a Nyström model's map, O(n) and more for a kpca checkpoint — where
// hashing the bytes is one pass at memory speed. A changed side input (another window,
// another job's model) is decoded again. The hash (hash/maphash, seeded per instance)
// is not cryptographic: it tells apart the bytes a runner hands one instance, not
// bytes forged to collide.
type sideKey struct {
	seed   maphash.Seed
	seeded bool
	key    modelKey // the bytes decoded, valid if held
	held   bool
}

// modelKey identifies the bytes of a model: their length and hash.
type modelKey struct {
	n    int
	hash uint64
}

// of returns the key of b.
func (k *sideKey) of(b []byte) modelKey {
	if !k.seeded {
		k.seed, k.seeded = maphash.MakeSeed(), true
	}
	return modelKey{len(b), maphash.Bytes(k.seed, b)}
}

// holds reports whether key is that of the bytes decoded.
func (k *sideKey) holds(key modelKey) bool { return k.held && k.key == key }

// set records key as that of the bytes decoded, or, with ok false, that none are.
func (k *sideKey) set(key modelKey, ok bool) { k.key, k.held = key, ok }

// A model given to Project reaches the workers as two side inputs: its digest, a few
// bytes, and its bytes, up to 64 MB for a Nyström model of r = 2000. A side input is
// readable only inside a bundle, and a runner hands it to every bundle again; with small
// bundles (Flink's streaming mode, Dataflow's) reading and hashing the bytes at each
// bundle moved up to 64 MB a bundle. So a bundle reads the digest only; the bytes are
// read — fetched from the runner, which streams a side input when it is iterated — only
// when the worker process has not fetched the bytes of that digest yet, and kept,
// process-wide, for every DoFn instance of the process (docs/design.md, "Beyond one
// machine", Projection).

func init() {
	register.Function1x1(modelDigest)
}

// modelDigest returns the digest of a model's bytes: their SHA-256, in hexadecimal,
// and their length. A cryptographic hash, unlike sideKey's, since it names the bytes
// across the worker processes of a job and across jobs.
func modelDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) + ":" + strconv.Itoa(len(b))
}

// modelFetches counts the model's bytes read from a side input by a worker process:
// once per process and model, where they were once per bundle.
var modelFetches = beam.NewCounter("ikpca", "model_fetches")

// fetched holds the bytes of the model last fetched in this process, and their digest:
// one model, since a pipeline projects with one (a process that runs another job's
// bundles fetches that job's model in its place).
var fetched struct {
	sync.Mutex
	digest string
	b      []byte
}

// fetchModel returns the bytes of the model of the given digest: the process's copy if
// it has them, or those of the side input model, read, checked against the digest and
// kept.
func fetchModel(ctx context.Context, digest string, model func(*[]byte) bool) ([]byte, error) {
	fetched.Lock()
	defer fetched.Unlock()
	if fetched.digest == digest && fetched.b != nil {
		return fetched.b, nil
	}
	var b, extra []byte
	if !model(&b) {
		return nil, fmt.Errorf("%w: no model in the side input", ErrArgument)
	}
	if model(&extra) {
		return nil, fmt.Errorf("%w: more than one model in the side input", ErrArgument)
	}
	modelFetches.Inc(ctx, 1)
	if got := modelDigest(b); got != digest {
		return nil, fmt.Errorf("ikpcabeam: the model's bytes have the digest %s, its digest side input %s", got, digest)
	}
	fetched.digest, fetched.b = digest, b
	return b, nil
}
