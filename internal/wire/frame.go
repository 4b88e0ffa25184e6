package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
)

// The frame of every model's encoding (ikpca.Persistent), all integers little-endian:
//
//	magic    8 bytes  names the type ("IKPCAMDL", …)
//	version  uint32   of the type's body format
//	length   uint64   the number of body bytes that follow
//	body     length bytes
//	sha256   32 bytes over everything above
//
// The length lets a reader take exactly one encoding from a stream (ReadFrame), and
// bounds what it reads before the checksum is checked.
const (
	// MagicSize is the length of a frame's magic.
	MagicSize = 8
	// PrefixSize is the length of a frame's magic, version and length.
	PrefixSize = MagicSize + 4 + 8
	// Overhead is the bytes a frame adds to its body.
	Overhead = PrefixSize + sha256.Size
)

// Frame returns the frame of body: the prefix, the body and the checksum.
func Frame(magic string, version uint32, body []byte) []byte {
	b := make([]byte, 0, Overhead+len(body))
	b = appendPrefix(b, magic, version, uint64(len(body)))
	b = append(b, body...)
	return Seal(b)
}

// appendPrefix appends the magic, the version and the body's length to b.
func appendPrefix(b []byte, magic string, version uint32, length uint64) []byte {
	if len(magic) != MagicSize {
		panic("wire: magic of " + fmt.Sprint(len(magic)) + " bytes")
	}
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, version)
	return binary.LittleEndian.AppendUint64(b, length)
}

// OpenFrame checks the frame of data — exactly one frame, nothing before or after it —
// and returns its version and its body. Data that does not start with the magic, or
// whose length disagrees with the length it states, is not an encoded what; a checksum
// that does not match means corrupted data; a version not among versions cannot be read.
// Each error wraps kind.
func OpenFrame(data []byte, magic string, kind error, what string, versions ...uint32) (uint32, []byte, error) {
	if len(data) < Overhead || string(data[:MagicSize]) != magic {
		return 0, nil, fmt.Errorf("%w: not an encoded %s", kind, what)
	}
	length := binary.LittleEndian.Uint64(data[MagicSize+4:])
	if length != uint64(len(data)-Overhead) {
		return 0, nil, fmt.Errorf("%w: the %s states %d bytes of body, and %d follow (truncated, or not one encoding)",
			kind, what, length, len(data)-Overhead)
	}
	body, stored := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], stored) {
		return 0, nil, fmt.Errorf("%w: checksum mismatch (corrupted)", kind)
	}
	v := binary.LittleEndian.Uint32(data[MagicSize:])
	for _, w := range versions {
		if v == w {
			return v, body[PrefixSize:], nil
		}
	}
	return 0, nil, fmt.Errorf("%w: version %d, this library reads %s", kind, v, versionList(versions))
}

// ReadFrame reads one frame from r — exactly its bytes — and returns it whole, for
// OpenFrame, with the number of bytes read. The prefix must carry the magic; the stated
// length is read as the data arrive, so a forged length costs no more memory than the
// bytes r actually holds. A stream that ends early is an error wrapping kind (and
// io.ErrUnexpectedEOF); other read errors are returned as they are. When r can say how
// many bytes it holds (remaining: a regular file, a bytes.Reader) and they cover the
// stated length, the frame is read into a buffer of exactly its size: grown as the
// bytes arrive, the buffer doubled, and reading a 467 MB checkpoint held up to twice
// that while it grew.
func ReadFrame(r io.Reader, magic string, kind error, what string) ([]byte, int, error) {
	prefix := make([]byte, PrefixSize)
	n, err := io.ReadFull(r, prefix)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, n, fmt.Errorf("%w: not an encoded %s (%d bytes): %w", kind, what, n, io.ErrUnexpectedEOF)
		}
		return nil, n, err
	}
	if string(prefix[:MagicSize]) != magic {
		return nil, n, fmt.Errorf("%w: not an encoded %s", kind, what)
	}
	length := binary.LittleEndian.Uint64(prefix[MagicSize+4:])
	if length > 1<<62 {
		return nil, n, fmt.Errorf("%w: the %s states %d bytes of body", kind, what, length)
	}
	var buf bytes.Buffer
	rest := int64(length) + sha256.Size
	if left, ok := remaining(r); ok && left >= rest {
		buf.Grow(PrefixSize + int(rest) + bytes.MinRead) // ReadFrom wants MinRead free
	}
	buf.Write(prefix)
	m, err := io.CopyN(&buf, r, rest)
	n += int(m)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, n, fmt.Errorf("%w: %s truncated after %d of %d bytes: %w", kind, what, n, int64(PrefixSize)+rest, io.ErrUnexpectedEOF)
		}
		return nil, n, err
	}
	return buf.Bytes(), n, nil
}

// remaining returns the number of bytes r holds after what it has read, when it can
// tell: a reader with a Len of its unread bytes (bytes.Reader, strings.Reader), or a
// regular file (its size less its offset).
func remaining(r io.Reader) (int64, bool) {
	if l, ok := r.(interface{ Len() int }); ok {
		return int64(l.Len()), true
	}
	f, ok := r.(interface {
		Stat() (fs.FileInfo, error)
		Seek(offset int64, whence int) (int64, error)
	})
	if !ok {
		return 0, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	return st.Size() - off, true
}

// Writer writes one frame to an io.Writer as its body is produced, hashing as it goes,
// so that a large body (a checkpoint of an exact model) is never held in memory. Body
// writes must add up to the length given to NewWriter; Close then writes the checksum.
// The first write error is kept and returned by every later call.
type Writer struct {
	w    io.Writer
	h    hash.Hash
	left uint64
	n    int
	err  error
}

// NewWriter starts a frame of a body of length bytes on w, writing its prefix.
func NewWriter(w io.Writer, magic string, version uint32, length uint64) *Writer {
	fw := &Writer{w: w, h: sha256.New(), left: length}
	fw.put(appendPrefix(make([]byte, 0, PrefixSize), magic, version, length))
	return fw
}

// put writes p to w and to the hash.
func (fw *Writer) put(p []byte) {
	if fw.err != nil {
		return
	}
	fw.h.Write(p)
	n, err := fw.w.Write(p)
	fw.n += n
	fw.err = err
}

// Write writes body bytes. More than the stated length is an error.
func (fw *Writer) Write(p []byte) (int, error) {
	if fw.err == nil && uint64(len(p)) > fw.left {
		fw.err = fmt.Errorf("wire: %d body bytes beyond the stated length", uint64(len(p))-fw.left)
	}
	fw.put(p)
	if fw.err != nil {
		return 0, fw.err
	}
	fw.left -= uint64(len(p))
	return len(p), nil
}

// Close writes the checksum and returns the number of bytes written to w in all. A body
// shorter than the stated length is an error.
func (fw *Writer) Close() (int, error) {
	if fw.err == nil && fw.left != 0 {
		fw.err = fmt.Errorf("wire: the body is %d bytes short of its stated length", fw.left)
	}
	if fw.err == nil {
		sum := fw.h.Sum(nil)
		n, err := fw.w.Write(sum)
		fw.n += n
		fw.err = err
	}
	return fw.n, fw.err
}
