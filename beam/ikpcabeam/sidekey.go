package ikpcabeam

import "hash/maphash"

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
