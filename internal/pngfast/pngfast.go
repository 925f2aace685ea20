package pngfast

import (
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"

	"github.com/spcalab/spca/internal/opacity"
)

// Encode writes m to w in PNG format: *image.Gray, *image.Gray16 and
// opaque *image.RGBA (as 8-bit RGB) as described in the package comment,
// other images by image/png at png.BestSpeed.
func Encode(w io.Writer, m image.Image) error { return encode(w, m, false) }

// EncodeOpaque is Encode of an image its caller knows to be opaque (an
// RGBA image's alpha all 0xff, as a decoder of YCbCr writes it): RGB
// without the pass over the alpha bytes (0.4 % of a colour batch decode
// to PNG). An RGBA image that is not opaque loses its alpha.
func EncodeOpaque(w io.Writer, m image.Image) error { return encode(w, m, true) }

// encode is Encode, taking an RGBA image as opaque without looking if
// opaque.
func encode(w io.Writer, m image.Image, opaque bool) error {
	var pix []byte
	var stride, depth, bytesPer int
	var colorType byte // 0 grey, 2 RGB
	r := m.Bounds()
	switch g := m.(type) {
	case *image.Gray:
		pix, stride, depth, bytesPer = g.Pix[g.PixOffset(r.Min.X, r.Min.Y):], g.Stride, 8, 1
	case *image.Gray16:
		pix, stride, depth, bytesPer = g.Pix[g.PixOffset(r.Min.X, r.Min.Y):], g.Stride, 16, 2
	case *image.RGBA:
		if !opaque && !opacity.Image(g.Pix, g.Stride, g.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 1) {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, m)
		}
		pix, stride, depth, bytesPer, colorType = g.Pix[g.PixOffset(r.Min.X, r.Min.Y):], g.Stride, 8, 3, 2
	default:
		return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, m)
	}
	dx, dy := r.Dx(), r.Dy()
	if dx <= 0 || dy <= 0 || int64(dx) >= 1<<31 || int64(dy) >= 1<<31 || int64(dx)*int64(bytesPer) >= 1<<31 {
		// image/png reports the error in its words.
		return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, m)
	}
	st := writeStates.get()
	defer writeStates.put(st)
	e := &encoder{w: w, buf: st.file[:0]}
	defer func() { st.file = e.buf[:0] }()
	e.write([]byte("\x89PNG\r\n\x1a\n"))
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(dx))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(dy))
	ihdr[8] = byte(depth) // deflate, adaptive filters, not interlaced
	ihdr[9] = colorType
	e.chunk("IHDR", ihdr[:])
	st.h.reset()
	n := dx * bytesPer
	// Rows go to the compressor a band at a time: one Write per 64 KB.
	band := max(1, (64<<10)/(1+n))
	if cap(st.rows) < band*(1+n) {
		st.rows = make([]byte, band*(1+n))
	}
	rows := st.rows[:0]
	// The file up to writeBytes, and room for a block's worst case past
	// it (flushSampled's): appends that outgrow buf copy it.
	if k := min(writeBytes, dy*(1+n)) + cap(rows)*maxLitLn/8 + 64; cap(e.buf) < k {
		e.buf = append(make([]byte, 0, k), e.buf...)
	}
	counted := 0 // bytes of rows counted: every sampleRows-th row of a band
	for y := 0; y < dy && e.err == nil; y++ {
		rows = append(rows, 1) // Sub: each byte minus the byte of the previous pixel
		row := rows[len(rows) : len(rows)+n]
		rows = rows[:len(rows)+n]
		if colorType == 2 {
			subRGB(row, pix[y*stride:y*stride+4*dx])
			st.h.tally(rows[len(rows)-n-1:])
			counted = len(rows)
		} else {
			st.h.adlerByte(1)
			st.h.subAdler(row, pix[y*stride:y*stride+n], bytesPer)
			if len(rows)/(1+n)%sampleRows == 1 {
				st.h.count(rows[len(rows)-n-1:])
				counted += 1 + n
			}
		}
		if len(rows)+1+n > cap(rows) || y == dy-1 {
			at, own := e.startIDAT(st.h)
			st.h.flushSampled(rows, counted)
			e.endIDAT(st.h, at, own)
			rows = rows[:0]
			counted = 0
		}
	}
	at, own := e.startIDAT(st.h)
	st.h.close()
	e.endIDAT(st.h, at, own)
	e.chunk("IEND", nil)
	e.flush()
	return e.err
}

// sampleRows: a grey image's Huffman tables are built from the counts
// of one row in sampleRows. Counting every byte took a quarter of the
// writer's time; the sample costs 0.2-0.3 % more bytes on decoded
// photographs (kodim13-24 grey decoded with the 8×8 and 4×4 models) and,
// with the Adler-32 sums (which need every byte) taken while filtering,
// saves 11-14 % of the time (BenchmarkEncodeReal).
const sampleRows = 4

// subRGB writes into dst (3 bytes a pixel) the Sub-filtered RGB bytes of
// the RGBA pixels src, dropping alpha: 4 pixels by two loads, bytewise
// differences in the words and two stores (a byte loop was 10 % of the
// instructions of a colour batch decode to PNG).
func subRGB(dst, src []byte) {
	var prev uint64 // the previous pixel, in the low 4 bytes
	i, j := 0, 0
	if k := subRGBKernel(dst, src); k > 0 {
		i, j = 3*k, 4*k
		prev = uint64(binary.LittleEndian.Uint32(src[j-4:]))
	}
	for ; j+16 <= len(src) && i+12 <= len(dst); i, j = i+12, j+16 {
		s, d := src[j:j+16:j+16], dst[i:i+12:i+12]
		a, b := binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:])
		fa, fb := subBytes(a, a<<32|prev), subBytes(b, b<<32|a>>32)
		prev = b >> 32
		binary.LittleEndian.PutUint64(d[:8], fa&0xffffff|fa>>8&0xffffff000000|fb<<48)
		binary.LittleEndian.PutUint32(d[8:], uint32(fb>>16&0xff|fb>>24&0xffffff00))
	}
	pr, pg, pb := byte(prev), byte(prev>>8), byte(prev>>16)
	for ; j+3 < len(src) && i+2 < len(dst); i, j = i+3, j+4 {
		r, g, b := src[j], src[j+1], src[j+2]
		dst[i], dst[i+1], dst[i+2] = r-pr, g-pg, b-pb
		pr, pg, pb = r, g, b
	}
}

// subBytes returns the bytewise differences x − y (mod 256) of the 8
// bytes of x and y, without borrows from one byte into the next.
func subBytes(x, y uint64) uint64 {
	const high = 0x8080808080808080
	return (x | high) - (y &^ high) ^ (x^^y)&high
}

// writeState is the compressor, its output buffer, the filtered rows
// and the file's bytes (encoder's buf) of an Encode, kept across calls
// (kept): a batch would otherwise allocate (and fault in) them per image.
type writeState struct {
	h    *huffWriter
	rows []byte
	file []byte
}

var writeStates = kept[writeState]{
	new: func() *writeState { return &writeState{h: newHuffWriter()} },
	keep: func(st *writeState) bool {
		return cap(st.rows) <= maxKeptBytes && cap(st.h.out) <= maxKeptBytes && cap(st.file) <= maxKeptBytes
	},
}

// encoder writes chunks to w through buf, keeping the first error: the
// file goes to w in Writes of at least writeBytes (or the whole file), not
// three a chunk. On this kind of VM a write(2) of a file's 64 KB chunks,
// each after its 8-byte header (through a 4 KB bufio.Writer, as the
// decoder's outputs are written), cost twice the CPU of one write of the
// whole file (1.3 MB in 21 chunks: 365 against 190 us, min of 15).
type encoder struct {
	w   io.Writer
	buf []byte
	err error
}

// writeBytes is how many bytes encoder gathers before writing them.
const writeBytes = 1 << 20

func (e *encoder) write(p []byte) {
	e.buf = append(e.buf, p...)
	if len(e.buf) >= writeBytes {
		e.flush()
	}
}

// flush writes buf to w.
func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// startIDAT starts an IDAT chunk in buf whose data h codes next, in
// place: h's output (what it holds, then what it adds) goes on in buf
// after the chunk's header, not through h's own buffer (copying it was
// 0.35 % of a colour batch decode to PNG). It returns where the chunk
// starts and h's own buffer, for endIDAT.
func (e *encoder) startIDAT(h *huffWriter) (at int, own []byte) {
	own, at = h.out, len(e.buf)
	e.buf = append(e.buf, 0, 0, 0, 0, 'I', 'D', 'A', 'T')
	h.out = append(e.buf, own...)
	return at, own
}

// endIDAT ends the chunk that startIDAT started at at: its length, its
// CRC, and h's own buffer back to h, empty.
func (e *encoder) endIDAT(h *huffWriter, at int, own []byte) {
	e.buf, h.out = h.out, own[:0]
	binary.BigEndian.PutUint32(e.buf[at:], uint32(len(e.buf)-at-8))
	e.buf = binary.BigEndian.AppendUint32(e.buf, crc32.ChecksumIEEE(e.buf[at+4:]))
	if len(e.buf) >= writeBytes {
		e.flush()
	}
}

// chunk writes a chunk: length, type, data, CRC-32 of type and data.
func (e *encoder) chunk(typ string, data []byte) {
	var h [8]byte
	binary.BigEndian.PutUint32(h[:4], uint32(len(data)))
	copy(h[4:], typ)
	crc := crc32.Update(crc32.ChecksumIEEE(h[4:]), crc32.IEEETable, data)
	e.write(h[:])
	e.write(data)
	binary.BigEndian.PutUint32(h[:4], crc)
	e.write(h[:4])
}
