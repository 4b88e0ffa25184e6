package sharded

import (
	"encoding/binary"
	"errors"
	"math"
)

// The binary encodings of what travels between a pipeline's steps: little-endian
// integers and the raw bits of the numbers, at memory speed (a state holds the shard's
// rows of the whole basis, N × Passes·Rank numbers). A decoder checks every length
// against the bytes it has, so that bytes that are not an encoding are an error, never
// a panic or an allocation they do not pay for.

var errEncoding = errors.New("sharded: not an encoding")

// writer appends to a byte slice.
type writer struct{ b []byte }

func (w *writer) int(v int) { w.b = binary.LittleEndian.AppendUint64(w.b, uint64(int64(v))) }

func (w *writer) floats(x []float64) {
	w.int(len(x))
	for _, v := range x {
		w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
	}
}

func (w *writer) matrix(m Matrix) {
	w.int(m.Rows)
	w.int(m.Cols)
	w.floats(m.Data)
}

// byteReader reads what writer wrote, recording the first error.
type byteReader struct {
	b   []byte
	err error
}

func (r *byteReader) int() int {
	if r.err != nil || len(r.b) < 8 {
		r.err = errEncoding
		return 0
	}
	v := int64(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	if v < 0 || v > 1<<31 { // no count or size of a run is larger, and products stay in range
		r.err = errEncoding
		return 0
	}
	return int(v)
}

func (r *byteReader) floats() []float64 {
	n := r.int()
	if r.err != nil || n > len(r.b)/8 {
		r.err = errEncoding
		return nil
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*i:]))
	}
	r.b = r.b[8*n:]
	return x
}

func (r *byteReader) matrix() Matrix {
	m := Matrix{Rows: r.int(), Cols: r.int(), Data: r.floats()}
	if r.err == nil && checkShape("a matrix", m) != nil {
		r.err = errEncoding
	}
	return m
}

func (r *byteReader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errEncoding
	}
	return r.err
}

// decodeInto reads a value from b with read and stores it in *dst only if b held
// exactly that value: the one shape of every UnmarshalBinary here, so that bytes it
// refuses leave *dst as it was.
func decodeInto[T any](dst *T, b []byte, read func(r *byteReader) T) error {
	r := byteReader{b: b}
	v := read(&r)
	if err := r.done(); err != nil {
		return err
	}
	*dst = v
	return nil
}

// MarshalBinary encodes the state.
func (st State) MarshalBinary() ([]byte, error) {
	w := writer{b: make([]byte, 0, 64+8*(len(st.IDs)+len(st.Q.Data)+len(st.Z.Data)+len(st.Local.Data)+len(st.Y.Data)+len(st.U.Data)))}
	w.int(st.Shard)
	w.int(st.N)
	w.int(len(st.IDs))
	for _, id := range st.IDs {
		w.b = binary.LittleEndian.AppendUint64(w.b, id)
	}
	for _, m := range []Matrix{st.Q, st.Z, st.Local, st.Y, st.U} {
		w.matrix(m)
	}
	return w.b, nil
}

// UnmarshalBinary decodes a state MarshalBinary encoded.
func (st *State) UnmarshalBinary(b []byte) error {
	return decodeInto(st, b, func(r *byteReader) State {
		s := State{Shard: r.int(), N: r.int()}
		if n := r.int(); r.err == nil && n <= len(r.b)/8 {
			s.IDs = make([]uint64, n)
			for i := range s.IDs {
				s.IDs[i] = binary.LittleEndian.Uint64(r.b[8*i:])
			}
			r.b = r.b[8*n:]
		} else {
			r.err = errEncoding
		}
		s.Q, s.Z, s.Local, s.Y, s.U = r.matrix(), r.matrix(), r.matrix(), r.matrix(), r.matrix()
		return s
	})
}

// MarshalBinary encodes the part.
func (p Part) MarshalBinary() ([]byte, error) {
	w := writer{b: make([]byte, 0, 16+8*len(p.Data))}
	w.int(p.Shard)
	w.floats(p.Data)
	return w.b, nil
}

// UnmarshalBinary decodes a part MarshalBinary encoded.
func (p *Part) UnmarshalBinary(b []byte) error {
	return decodeInto(p, b, func(r *byteReader) Part { return Part{Shard: r.int(), Data: r.floats()} })
}

// MarshalBinary encodes the tile's part.
func (p TilePart) MarshalBinary() ([]byte, error) {
	w := writer{b: make([]byte, 0, 32+8*len(p.Y.Data))}
	w.int(p.Tile)
	w.matrix(p.Y)
	return w.b, nil
}

// UnmarshalBinary decodes a tile's part MarshalBinary encoded.
func (p *TilePart) UnmarshalBinary(b []byte) error {
	return decodeInto(p, b, func(r *byteReader) TilePart { return TilePart{Tile: r.int(), Y: r.matrix()} })
}
