// Package netpbm reads and writes binary greymaps and pixmaps (PGM "P5"
// and PPM "P6", 8 or 16 bits a sample), the uncompressed formats that
// cjpeg reads and djpeg writes. Reading a 768×512 greymap is one read
// into the image's pixels, where a PNG costs an inflate and unfiltering:
// the codec's per-process CPU is compared with cjpeg/djpeg on the same
// files.
//
// Importing the package registers the decoder with image.Decode.
package netpbm

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/spcalab/spca/internal/rgbrows"
	"image"
	"image/color"
	"io"
	"math"
	"sync"

	"github.com/spcalab/spca/internal/opacity"
)

// maxSide bounds the width and height a header may declare.
const maxSide = 1 << 20

// directBytes is the largest raster read straight into a new image; a
// larger one is read first (growing as the data arrive) so that a short
// file declaring a huge image fails before the image is allocated.
const directBytes = 16 << 20

// readers keeps Decode's 64 KB reader between calls (a fresh one per
// image was fresh memory in a batch, which collects rarely).
var readers kept

type kept struct {
	mu sync.Mutex
	br *bufio.Reader
}

func (k *kept) get() *bufio.Reader {
	k.mu.Lock()
	br := k.br
	k.br = nil
	k.mu.Unlock()
	if br == nil {
		br = bufio.NewReaderSize(nil, 64<<10)
	}
	return br
}

func (k *kept) put(br *bufio.Reader) {
	k.mu.Lock()
	k.br = br
	k.mu.Unlock()
}

// FormatError reports a malformed file.
type FormatError string

func (e FormatError) Error() string { return "netpbm: " + string(e) }

func init() {
	image.RegisterFormat("pgm", "P5", Decode, DecodeConfig)
	image.RegisterFormat("ppm", "P6", Decode, DecodeConfig)
}

type header struct {
	channels, width, height, maxval int
}

// readHeader reads the magic number, width, height and maximum value, and
// the single whitespace byte that ends the header.
func readHeader(r *bufio.Reader) (header, error) {
	var magic [2]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return header{}, FormatError("truncated header")
	}
	var h header
	switch string(magic[:]) {
	case "P5":
		h.channels = 1
	case "P6":
		h.channels = 3
	default:
		return header{}, FormatError(fmt.Sprintf("magic number %q (want P5 or P6, the binary greymap or pixmap)", magic[:]))
	}
	for i, dst := range []*int{&h.width, &h.height, &h.maxval} {
		v, err := readNumber(r)
		if err != nil {
			return header{}, err
		}
		if i < 2 && (v < 1 || v > maxSide) {
			return header{}, FormatError(fmt.Sprintf("size %d out of range 1 to %d", v, maxSide))
		}
		*dst = v
	}
	if h.maxval < 1 || h.maxval > 65535 {
		return header{}, FormatError(fmt.Sprintf("maximum value %d out of range 1 to 65535", h.maxval))
	}
	c, err := r.ReadByte()
	if err != nil || !isSpace(c) {
		return header{}, FormatError("no whitespace after the maximum value")
	}
	return h, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// readNumber skips whitespace and comments (# to the end of the line),
// then reads a decimal number.
func readNumber(r *bufio.Reader) (int, error) {
	c, err := r.ReadByte()
	for err == nil && (isSpace(c) || c == '#') {
		if c == '#' {
			for err == nil && c != '\n' && c != '\r' {
				c, err = r.ReadByte()
			}
			continue
		}
		c, err = r.ReadByte()
	}
	if err != nil {
		return 0, FormatError("truncated header")
	}
	if c < '0' || c > '9' {
		return 0, FormatError(fmt.Sprintf("unexpected byte %q in the header", c))
	}
	v := 0
	for ; err == nil && c >= '0' && c <= '9'; c, err = r.ReadByte() {
		if v = v*10 + int(c-'0'); v > 1<<30 {
			return 0, FormatError("number too large in the header")
		}
	}
	if err == nil && c == '#' {
		// A comment ends the number, as libnetpbm reads it ("255#c\n"):
		// its end of line is the whitespace after the number.
		for err == nil && c != '\n' && c != '\r' {
			c, err = r.ReadByte()
		}
	}
	if err == nil {
		if !isSpace(c) {
			return 0, FormatError(fmt.Sprintf("unexpected byte %q in the header", c))
		}
		r.UnreadByte() // the last number's single whitespace is the raster's start
	}
	return v, nil
}

// DecodeConfig returns the colour model and size of a greymap or pixmap.
func DecodeConfig(r io.Reader) (image.Config, error) {
	h, err := readHeader(bufio.NewReader(r))
	if err != nil {
		return image.Config{}, err
	}
	m := map[[2]bool]color.Model{
		{false, false}: color.GrayModel, {false, true}: color.Gray16Model,
		{true, false}: color.RGBAModel, {true, true}: color.RGBA64Model,
	}[[2]bool{h.channels == 3, h.maxval > 255}]
	return image.Config{ColorModel: m, Width: h.width, Height: h.height}, nil
}

// Decode reads a greymap as *image.Gray (maximum value up to 255) or
// *image.Gray16, a pixmap as *image.RGBA or *image.RGBA64. Samples are
// scaled from the file's maximum value to 255 or 65535; a sample above the
// maximum is an error.
func Decode(r io.Reader) (image.Image, error) { return DecodeInto(r, nil) }

// DecodeInto is Decode, with the pixels of a greymap or pixmap of 8 bits
// a sample read into the memory of into, if into is an *image.Gray (for a
// greymap) or *image.RGBA (for a pixmap) of at least as many pixels that
// holds them alone (origin 0, rows end to end: not a
// sub-image); the caller gives into up, and the image returned has the
// file's bounds. A batch then
// reads image after image into the same memory: a fresh image was more
// than half the memory a 768×512 batch encode touched per image (each
// page of it faulted in and cleared by the kernel).
func DecodeInto(r io.Reader, into image.Image) (image.Image, error) {
	return decodeInto(r, into, false)
}

// DecodePacked is DecodeInto, but returns a pixmap of 8 bits a sample as
// an *rgbrows.Image of its raster as read (3 bytes a pixel, scaled),
// read into into's memory if into is an *rgbrows.Image with room for it,
// instead of spreading it to RGBA.
func DecodePacked(r io.Reader, into image.Image) (image.Image, error) {
	return decodeInto(r, into, true)
}

func decodeInto(r io.Reader, into image.Image, packed bool) (image.Image, error) {
	br := readers.get()
	br.Reset(r)
	defer func() { br.Reset(nil); readers.put(br) }()
	h, err := readHeader(br)
	if err != nil {
		return nil, err
	}
	bps := 1
	if h.maxval > 255 {
		bps = 2
	}
	// In int64: 2^20 × 2^20 × 6 wraps a 32-bit int (to 0: an image
	// without pixels, whose first access panicked). The RGBA image of a
	// pixmap has 4 samples a pixel.
	samples := int64(1)
	if h.channels == 3 {
		samples = 4
	}
	if size := int64(h.width) * int64(h.height) * samples * int64(bps); size > math.MaxInt {
		return nil, FormatError(fmt.Sprintf("%d×%d image too large for this platform", h.width, h.height))
	}
	n := h.width * h.height * h.channels * bps
	if bps == 1 && h.channels == 3 && n <= directBytes {
		if packed {
			return readPacked8(br, h, into)
		}
		return readPixmap8(br, h, into)
	}
	var raster []byte
	if g, ok := into.(*image.Gray); ok && bps == 1 && h.channels == 1 && g.Rect.Min == (image.Point{}) &&
		g.Stride == g.Rect.Dx() && len(g.Pix) == g.Stride*g.Rect.Dy() && len(g.Pix) >= n {
		raster = g.Pix[:n]
		if _, err := io.ReadFull(br, raster); err != nil {
			return nil, FormatError("truncated raster")
		}
	} else if n <= directBytes {
		raster = make([]byte, n)
		if _, err := io.ReadFull(br, raster); err != nil {
			return nil, FormatError("truncated raster")
		}
	} else {
		var buf bytes.Buffer
		if m, _ := io.CopyN(&buf, br, int64(n)); m != int64(n) {
			return nil, FormatError("truncated raster")
		}
		raster = buf.Bytes()
	}
	rect := image.Rect(0, 0, h.width, h.height)
	if bps == 1 {
		if err := scale8(raster, h.maxval); err != nil {
			return nil, err
		}
		if h.channels == 1 {
			return &image.Gray{Pix: raster, Stride: h.width, Rect: rect}, nil
		}
		img := image.NewRGBA(rect)
		for i, o := 0, 0; i < len(raster); i, o = i+3, o+4 {
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = raster[i], raster[i+1], raster[i+2], 0xff
		}
		return img, nil
	}
	if err := scale16(raster, h.maxval); err != nil {
		return nil, err
	}
	if h.channels == 1 {
		return &image.Gray16{Pix: raster, Stride: 2 * h.width, Rect: rect}, nil
	}
	img := image.NewRGBA64(rect)
	for i, o := 0, 0; i < len(raster); i, o = i+6, o+8 {
		copy(img.Pix[o:o+6], raster[i:i+6])
		img.Pix[o+6], img.Pix[o+7] = 0xff, 0xff
	}
	return img, nil
}

var errAboveMax = FormatError("sample above the maximum value")

// readPixmap8 reads the raster of an 8-bit pixmap into an RGBA image:
// into's memory if into is an *image.RGBA of at least as many pixels that
// holds them alone, a new image otherwise. Each row is read into the last
// 3/4 of its place and spread forward to 4 bytes a pixel, so no raster is
// allocated: a fresh raster and a fresh image were a quarter of the CPU of
// a colour batch encode from PPM (each page faulted in and cleared).
func readPixmap8(br *bufio.Reader, h header, into image.Image) (image.Image, error) {
	w, rect := h.width, image.Rect(0, 0, h.width, h.height)
	var img *image.RGBA
	if m, ok := into.(*image.RGBA); ok && m.Rect.Min == (image.Point{}) && m.Stride == 4*m.Rect.Dx() &&
		len(m.Pix) == m.Stride*m.Rect.Dy() && len(m.Pix) >= 4*w*h.height {
		img = &image.RGBA{Pix: m.Pix[:4*w*h.height], Stride: 4 * w, Rect: rect}
	} else {
		img = image.NewRGBA(rect)
	}
	for y := range h.height {
		row := img.Pix[4*w*y : 4*w*(y+1)]
		rgb := row[w:]
		if _, err := io.ReadFull(br, rgb); err != nil {
			return nil, FormatError("truncated raster")
		}
		if err := scale8(rgb, h.maxval); err != nil {
			return nil, err
		}
		spreadRGB(row, w)
	}
	return img, nil
}

// readPacked8 reads the raster of an 8-bit pixmap as it is into an
// *rgbrows.Image: into's memory if into is one with room for it, new
// memory otherwise.
func readPacked8(br *bufio.Reader, h header, into image.Image) (image.Image, error) {
	n := 3 * h.width * h.height
	var mem []byte
	if m, ok := into.(*rgbrows.Image); ok && len(m.Mem) >= n {
		mem = m.Mem
	} else {
		mem = make([]byte, n)
	}
	raster := mem[:n]
	if _, err := io.ReadFull(br, raster); err != nil {
		return nil, FormatError("truncated raster")
	}
	if err := scale8(raster, h.maxval); err != nil {
		return nil, err
	}
	return &rgbrows.Image{Pix: raster, Stride: 3 * h.width, Rect: image.Rect(0, 0, h.width, h.height), Mem: mem}, nil
}

// spreadRGB spreads the w RGB pixels in the last 3/4 of row (4·w bytes)
// to RGBA over the whole row, alpha 0xff, 8 then 4 pixels at a time: a
// group's 16 bytes of 4 pixels end before the next group's 12 begin
// (16g+16 ≤ w+12g+12 while 4g+4 ≤ w), each read before it is
// overwritten, and so for the pixels after the groups (4x+3 < w+3x+3).
// Not inlined: in readPixmap8's loop the compiler kept the indices on the
// stack.
//
//go:noinline
func spreadRGB(row []byte, w int) {
	const alpha = 0xff000000
	const alphas = alpha<<32 | alpha
	x := rgbrows.ToRGBA(row[:4*w], row[w:4*w]) // 4 pixels a byte shuffle where the CPU has it
	// 8 pixels by three loads and four stores (their 32 bytes end where
	// the next group's 24 begin, or before: 4x+32 ≤ w+3x+24 while x+8 ≤ w),
	// then 4 by two and two.
	for ; x+8 <= w && w+3*x+24 <= len(row) && 4*x+32 <= len(row); x += 8 {
		s, d := row[w+3*x:w+3*x+24:w+3*x+24], row[4*x:4*x+32:4*x+32]
		a, b, c := binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:16]), binary.LittleEndian.Uint64(s[16:])
		binary.LittleEndian.PutUint64(d[:8], a&0xffffff|a<<8&0xffffff00000000|alphas)
		binary.LittleEndian.PutUint64(d[8:16], (a>>48|b<<16)&0xffffff|b<<24&0xffffff00000000|alphas)
		binary.LittleEndian.PutUint64(d[16:24], b>>32&0xffffff|(b>>56|c<<8)<<32&0xffffff00000000|alphas)
		binary.LittleEndian.PutUint64(d[24:], c>>16&0xffffff|c>>40<<32|alphas)
	}
	for ; x+4 <= w && w+3*x+12 <= len(row) && 4*x+16 <= len(row); x += 4 {
		s := w + 3*x
		a, b := binary.LittleEndian.Uint64(row[s:s+8]), uint64(binary.LittleEndian.Uint32(row[s+8:s+12]))
		p0, p1 := a&0xffffff|alpha, a>>24&0xffffff|alpha
		p2, p3 := (a>>48|b<<16)&0xffffff|alpha, b>>8|alpha
		binary.LittleEndian.PutUint64(row[4*x:4*x+8], p0|p1<<32)
		binary.LittleEndian.PutUint64(row[4*x+8:4*x+16], p2|p3<<32)
	}
	for ; x < w; x++ {
		s := w + 3*x
		r, g, b := row[s], row[s+1], row[s+2]
		row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = r, g, b, 0xff
	}
}

// writeColourRows writes the R, G, B samples (bps bytes each) of the
// w×h pixels of an RGBA or RGBA64 raster from index at, dropping alpha:
// each pixel's first 4·bps bytes stored whole at its place in the row,
// their alpha overwritten by the next pixel's (a copy of 3·bps bytes a
// pixel was a memmove call each, 20 % of a colour decode's instructions).
func writeColourRows(bw *bufio.Writer, pix []byte, stride, at, w, h, bps int) {
	row := make([]byte, 3*bps*w+bps)
	for y := range h {
		src := pix[at+y*stride:][:4*bps*w]
		if bps == 1 {
			dropAlpha8(row, src)
		} else {
			dropAlpha16(row, src)
		}
		bw.Write(row[:3*bps*w])
	}
}

// dropAlpha8 stores each 4 bytes of src at each 3 bytes of dst, which
// must hold one more byte than their 3/4: 8 pixels by four loads and
// three stores, then 4 by two and two. Not inlined: in writeColourRows's
// loop, around a call, the compiler kept the indices on the stack.
//
//go:noinline
func dropAlpha8(dst, src []byte) {
	n := rgbrows.ToRGB(dst, src) // 4 pixels a byte shuffle where the CPU has it
	i, j := 4*n, 3*n
	for ; i+32 <= len(src) && j+24 <= len(dst); i, j = i+32, j+24 { // 8 pixels
		s, d := src[i:i+32:i+32], dst[j:j+24:j+24]
		a, b := binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:16])
		c, e := binary.LittleEndian.Uint64(s[16:24]), binary.LittleEndian.Uint64(s[24:])
		binary.LittleEndian.PutUint64(d[:8], a&0xffffff|a>>8&0xffffff000000|b<<48)
		binary.LittleEndian.PutUint64(d[8:16], b>>16&0xff|b>>24&0xffffff00|c<<32&0xffffff00000000|c<<24&0xff00000000000000)
		binary.LittleEndian.PutUint64(d[16:], c>>40&0xffff|e<<16&0xffffff0000|e<<8&0xffffff0000000000)
	}
	for ; i+16 <= len(src) && j+12 <= len(dst); i, j = i+16, j+12 { // 4 pixels
		a, b := binary.LittleEndian.Uint64(src[i:i+8]), binary.LittleEndian.Uint64(src[i+8:i+16])
		binary.LittleEndian.PutUint64(dst[j:j+8], a&0xffffff|a>>8&0xffffff000000|b<<48)
		binary.LittleEndian.PutUint32(dst[j+8:j+12], uint32(b>>16&0xff|b>>24&0xffffff00))
	}
	for ; i+4 <= len(src) && j+4 <= len(dst); i, j = i+4, j+3 {
		binary.LittleEndian.PutUint32(dst[j:j+4], binary.LittleEndian.Uint32(src[i:i+4]))
	}
}

// dropAlpha16 stores each 8 bytes of src at each 6 bytes of dst, which
// must hold two more bytes than their 3/4.
//
//go:noinline
func dropAlpha16(dst, src []byte) {
	for i, j := 0, 0; i+8 <= len(src) && j+8 <= len(dst); i, j = i+8, j+6 {
		binary.LittleEndian.PutUint64(dst[j:j+8], binary.LittleEndian.Uint64(src[i:i+8]))
	}
}

// scale8 maps 8-bit samples from 0..maxval to 0..255 in place.
func scale8(p []byte, maxval int) error {
	if maxval == 255 {
		return nil
	}
	for i, v := range p {
		if int(v) > maxval {
			return errAboveMax
		}
		p[i] = byte((int(v)*255 + maxval/2) / maxval)
	}
	return nil
}

// scale16 maps big-endian 16-bit samples from 0..maxval to 0..65535.
func scale16(p []byte, maxval int) error {
	for i := 0; i+1 < len(p); i += 2 {
		v := int(binary.BigEndian.Uint16(p[i:]))
		if v > maxval {
			return errAboveMax
		}
		// In uint32 (65535·65535 + 32767 < 2^32): in int, samples above
		// 32768 overflowed on 32-bit platforms (sample 32918 of maxval
		// 65534 read as 32918, not 32919).
		binary.BigEndian.PutUint16(p[i:], uint16((uint32(v)*65535+uint32(maxval/2))/uint32(maxval)))
	}
	return nil
}

// ErrNotOpaque is returned by Encode for an image with transparent
// pixels, which a pixmap cannot hold.
var ErrNotOpaque = errors.New("netpbm: image has transparent pixels")

// Encode writes img as a greymap (*image.Gray, *image.Gray16) or a pixmap
// (any other opaque image; 16 bits a sample if its colour model is
// RGBA64, NRGBA64 or Gray16), maximum value 255 or 65535.
func Encode(w io.Writer, img image.Image) error { return encode(w, img, false) }

// EncodeOpaque is Encode of an image its caller knows to be opaque (an
// RGBA image's alpha all 0xff, as a colour decode writes it), without the
// pass over the alpha bytes that checks it (0.6 % of a colour batch
// decode to PPM); an RGBA image that is not opaque loses its alpha.
func EncodeOpaque(w io.Writer, img image.Image) error { return encode(w, img, true) }

func encode(w io.Writer, img image.Image, opaque bool) error {
	b := img.Bounds()
	if b.Empty() {
		return FormatError("empty image")
	}
	if !opaque && !opacity.Of(img) {
		return ErrNotOpaque
	}
	deep := img.ColorModel() == color.RGBA64Model || img.ColorModel() == color.NRGBA64Model || img.ColorModel() == color.Gray16Model
	magic, maxval, bps := "P6", 255, 1
	if deep {
		maxval, bps = 65535, 2
	}
	_, grey := img.(*image.Gray)
	_, grey16 := img.(*image.Gray16)
	if grey || grey16 {
		magic = "P5"
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "%s\n%d %d\n%d\n", magic, b.Dx(), b.Dy(), maxval)
	switch m := img.(type) {
	case *image.Gray:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			i := m.PixOffset(b.Min.X, y)
			bw.Write(m.Pix[i : i+b.Dx()])
		}
	case *image.Gray16:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			i := m.PixOffset(b.Min.X, y)
			bw.Write(m.Pix[i : i+2*b.Dx()])
		}
	case *image.RGBA:
		// Opaque (checked above): the colour is the stored bytes. A
		// decoded colour image; img.At boxed every pixel (12 % of the CPU
		// of a colour decode to PPM).
		writeColourRows(bw, m.Pix, m.Stride, m.PixOffset(b.Min.X, b.Min.Y), b.Dx(), b.Dy(), 1)
	case *image.RGBA64:
		writeColourRows(bw, m.Pix, m.Stride, m.PixOffset(b.Min.X, b.Min.Y), b.Dx(), b.Dy(), 2)
	default:
		row := make([]byte, 0, 3*bps*b.Dx())
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row = row[:0]
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, a := img.At(x, y).RGBA()
				if a != 0xffff {
					return ErrNotOpaque
				}
				if bps == 2 {
					row = binary.BigEndian.AppendUint16(row, uint16(r))
					row = binary.BigEndian.AppendUint16(row, uint16(g))
					row = binary.BigEndian.AppendUint16(row, uint16(bl))
				} else {
					row = append(row, byte(r>>8), byte(g>>8), byte(bl>>8))
				}
			}
			bw.Write(row)
		}
	}
	return bw.Flush()
}
