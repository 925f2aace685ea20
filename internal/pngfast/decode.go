package pngfast

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/spcalab/spca/internal/rgbrows"
	"hash/crc32"
	"image"
	"io"
	"io/fs"
	"math"
	"slices"
	"sync"
)

var (
	// ErrNotPNG is returned by Decode for data that do not start with the
	// PNG signature.
	ErrNotPNG = errors.New("pngfast: not a PNG file")
	// ErrUnsupported is returned, wrapped with the detail, by Decode for
	// PNG files it leaves to image/png: other bit depths or colour types
	// than 8-bit grey, RGB and RGBA, interlaced images, and files with a
	// palette, a transparency (tRNS) chunk, an ICC profile (iCCP) or an
	// unknown critical chunk.
	ErrUnsupported = errors.New("pngfast: unsupported PNG")
	// ErrTooLarge is returned, wrapped, by Decode for images of more
	// pixels than DecodeOptions.MaxPixels, before any pixel is decoded.
	ErrTooLarge = errors.New("pngfast: image too large")
)

// FormatError reports a malformed PNG file: a bad checksum, a truncated
// file, chunks out of order, pixel data that do not fill the image or
// overflow it.
type FormatError string

func (e FormatError) Error() string { return "pngfast: invalid PNG: " + string(e) }

// DecodeOptions are the parameters of Decode; nil means the defaults.
type DecodeOptions struct {
	// MaxPixels, if positive, is the largest number of pixels accepted.
	// Whatever it is, Decode allocates the image only once the file has
	// delivered compressed data that can fill it.
	MaxPixels int64
	// Into, if not nil, is an image the caller gives up: Decode writes
	// the pixels into its memory, and returns it (reshaped if the bounds
	// differ), when the file's image has its type and needs no more
	// bytes, and Into holds its pixels alone (origin 0, rows end to end:
	// not a sub-image). A batch then reads
	// image after image into the same memory (fresh memory is faulted in
	// and cleared by the kernel page by page).
	Into image.Image
	// PackedRGB has an 8-bit RGB file come back as an *rgbrows.Image,
	// its rows where they were unfiltered, instead of copied into an
	// *image.RGBA; Into is then reused if it is an *rgbrows.Image whose
	// memory holds the rows.
	PackedRGB bool
}

// pngSignature starts every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// maxInflation bounds the bytes one byte of a deflate stream can expand
// to (a 258-byte match coded in 2 bits), so that a header is believed
// only as far as the compressed data present can fill it.
const maxInflation = 1032

// Decode reads a PNG image from r in one pass: 8-bit grey as
// *image.Gray, 8-bit RGB as *image.RGBA (opaque) and 8-bit RGBA as
// *image.NRGBA, non-interlaced — the types and pixels image/png returns.
// It reads r through to the IEND chunk, checking every chunk's CRC and
// the zlib checksum, and is at least as strict as image/png: whenever
// image/png rejects a file, from any reader, Decode returns an error.
// Like image/png it ignores IDAT chunks after the one where the zlib
// stream ends, or after another chunk, but refuses bytes after the
// stream inside its chunk, which image/png reads from some readers and
// refuses from others. For other PNG files
// it returns an error wrapping ErrUnsupported, for data that are not PNG
// ErrNotPNG, for malformed files a FormatError (or a read error of r).
func Decode(r io.Reader, o *DecodeOptions) (image.Image, error) {
	var opt DecodeOptions
	if o != nil {
		opt = *o
	}
	st := readStates.get()
	defer readStates.put(st)
	st.br.Reset(r)
	defer st.br.Reset(nil) // drop r
	// Not a PNG (a PGM tried first, say): no buffer for its data. That of
	// a 768×512 PGM, 393 KB, was fresh memory on every first image.
	if sig, err := st.br.Peek(len(pngSignature)); err != nil || string(sig) != pngSignature {
		return nil, ErrNotPNG
	}
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		// A file's size bounds its IDAT data: one allocation, no regrowth.
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxKeptBytes && cap(st.idat) < int(fi.Size()) {
			st.idat = make([]byte, 0, fi.Size())
		}
	}
	hd, idat, err := st.readChunks(opt)
	st.idat = idat[:0]
	if err != nil {
		return nil, err
	}
	return st.inflate(hd, idat, opt.Into, opt.PackedRGB)
}

// header is what Decode uses of the IHDR chunk.
type header struct {
	w, h      int
	colorType byte // 0 grey, 2 RGB, 6 RGBA
	bpp       int  // bytes per pixel
}

// readState is the reader, buffers and inflater of a Decode, kept across
// calls (a batch decodes image after image).
type readState struct {
	br   *bufio.Reader
	idat []byte    // the IDAT chunks' data, concatenated
	ends []int     // where each IDAT chunk's data ends in idat
	inf  *inflater // nil until first used
	raw  []byte    // the inflated rows, filter bytes and all
	prev []byte    // a first row's zero previous row
	skip [4096]byte
}

var readStates = kept[readState]{
	new: func() *readState { return &readState{br: bufio.NewReaderSize(nil, 64<<10)} },
	keep: func(st *readState) bool {
		return cap(st.idat) <= maxKeptBytes && cap(st.raw) <= maxKeptBytes && cap(st.ends) <= maxKeptBytes/8
	},
}

// maxKeptBytes caps a buffer kept across calls (that of an image of a
// few hundred megapixels is not kept).
const maxKeptBytes = 64 << 20

// kept keeps one value across calls, which sync.Pool would drop at the
// next collection: in a batch, collections come between images (perf of
// a batch encode showed the reader's buffers zeroed and faulted in anew).
// Concurrent callers beyond the first get new values.
type kept[T any] struct {
	mu   sync.Mutex
	v    *T
	new  func() *T
	keep func(*T) bool
}

func (k *kept[T]) get() *T {
	k.mu.Lock()
	v := k.v
	k.v = nil
	k.mu.Unlock()
	if v == nil {
		v = k.new()
	}
	return v
}

func (k *kept[T]) put(v *T) {
	if k.keep != nil && !k.keep(v) {
		return
	}
	k.mu.Lock()
	k.v = v
	k.mu.Unlock()
}

// readChunks reads the signature and the chunks through IEND, checking
// their CRCs and order, and returns the header and the concatenated
// IDAT data.
func (st *readState) readChunks(opt DecodeOptions) (hd header, idat []byte, err error) {
	br := st.br
	var b [13]byte
	if _, err := io.ReadFull(br, b[:8]); err != nil || string(b[:8]) != pngSignature {
		return hd, st.idat, ErrNotPNG
	}
	idat = st.idat[:0]
	st.ends = st.ends[:0]
	seenIHDR, seenIDAT, afterIDAT := false, false, false
	for {
		if _, err := io.ReadFull(br, b[:8]); err != nil {
			return hd, idat, readError(err)
		}
		n := binary.BigEndian.Uint32(b[:4])
		if n > 0x7fffffff {
			return hd, idat, FormatError(fmt.Sprintf("chunk length %d", n))
		}
		typ := [4]byte(b[4:8])
		crc := crc32.Update(0, crc32.IEEETable, typ[:])
		if !seenIHDR && string(typ[:]) != "IHDR" {
			return hd, idat, FormatError("first chunk is not IHDR")
		}
		switch string(typ[:]) {
		case "IHDR":
			if seenIHDR {
				return hd, idat, FormatError("two IHDR chunks")
			}
			seenIHDR = true
			if n != 13 {
				return hd, idat, FormatError("bad IHDR length")
			}
			if _, err := io.ReadFull(br, b[:13]); err != nil {
				return hd, idat, readError(err)
			}
			crc = crc32.Update(crc, crc32.IEEETable, b[:13])
			if hd, err = parseHeader(b[:13], opt); err != nil {
				return hd, idat, err
			}
		case "IDAT":
			if afterIDAT {
				// As image/png: ignored (its CRC checked) once another
				// chunk came after the IDAT chunks; their data end there.
				if crc, err = st.skipChunk(n, crc); err != nil {
					return hd, idat, err
				}
				break
			}
			seenIDAT = true
			// Grow by what arrives, not by what the length claims.
			for rest := int(n); rest > 0; {
				k := min(rest, 1<<20)
				idat = grow(idat, k)
				p := idat[len(idat)-k:]
				if _, err := io.ReadFull(br, p); err != nil {
					return hd, idat, readError(err)
				}
				crc = crc32.Update(crc, crc32.IEEETable, p)
				rest -= k
			}
			if n > 0 {
				st.ends = append(st.ends, len(idat))
			}
		case "IEND":
			if !seenIDAT {
				return hd, idat, FormatError("IEND before IDAT")
			}
			if n != 0 {
				return hd, idat, FormatError("IEND chunk with data")
			}
		case "PLTE", "tRNS", "iCCP":
			return hd, idat, fmt.Errorf("%w: %s chunk", ErrUnsupported, typ[:])
		default:
			if typ[0]&0x20 == 0 {
				return hd, idat, fmt.Errorf("%w: unknown critical chunk %q", ErrUnsupported, typ[:])
			}
			afterIDAT = seenIDAT
			if crc, err = st.skipChunk(n, crc); err != nil {
				return hd, idat, err
			}
		}
		if _, err := io.ReadFull(br, b[:4]); err != nil {
			return hd, idat, readError(err)
		}
		if binary.BigEndian.Uint32(b[:4]) != crc {
			return hd, idat, FormatError(fmt.Sprintf("%s chunk checksum mismatch", typ[:]))
		}
		if string(typ[:]) == "IEND" {
			return hd, idat, nil
		}
	}
}

// skipChunk reads the n bytes of a chunk's data, adding them to its CRC.
func (st *readState) skipChunk(n uint32, crc uint32) (uint32, error) {
	for rest := int(n); rest > 0; {
		p := st.skip[:min(rest, len(st.skip))]
		if _, err := io.ReadFull(st.br, p); err != nil {
			return crc, readError(err)
		}
		crc = crc32.Update(crc, crc32.IEEETable, p)
		rest -= len(p)
	}
	return crc, nil
}

// idatEndsAt reports whether an IDAT chunk's data end at n in the
// concatenated data. Bytes after the zlib stream are read where the
// stream ends with its chunk: image/png never reads the chunks after it
// (and ignores them), whatever its reader. Inside that chunk they are
// refused: image/png reads them or not as its reader splits the file
// (from a bytes.Reader, or one byte a call).
func (st *readState) idatEndsAt(n int) bool {
	_, found := slices.BinarySearch(st.ends, n)
	return found
}

// parseHeader checks an IHDR chunk's data.
func parseHeader(b []byte, opt DecodeOptions) (header, error) {
	w, h := int32(binary.BigEndian.Uint32(b[0:])), int32(binary.BigEndian.Uint32(b[4:]))
	if w <= 0 || h <= 0 {
		return header{}, FormatError(fmt.Sprintf("dimensions %d×%d", w, h))
	}
	depth, colorType, compression, filter, interlace := b[8], b[9], b[10], b[11], b[12]
	if compression != 0 || filter != 0 || interlace > 1 {
		return header{}, FormatError("unknown compression, filter or interlace method")
	}
	hd := header{w: int(w), h: int(h), colorType: colorType}
	switch {
	case depth != 8:
		return hd, fmt.Errorf("%w: bit depth %d", ErrUnsupported, depth)
	case interlace == 1:
		return hd, fmt.Errorf("%w: interlaced", ErrUnsupported)
	case colorType == 0:
		hd.bpp = 1
	case colorType == 2:
		hd.bpp = 3
	case colorType == 6:
		hd.bpp = 4
	default:
		return hd, fmt.Errorf("%w: colour type %d", ErrUnsupported, colorType)
	}
	if n := int64(w) * int64(h); opt.MaxPixels > 0 && n > opt.MaxPixels {
		return hd, fmt.Errorf("%w: %d×%d is %d pixels, more than %d", ErrTooLarge, w, h, n, opt.MaxPixels)
	}
	return hd, nil
}

// grow extends b by k bytes, keeping its contents.
func grow(b []byte, k int) []byte {
	if len(b)+k > cap(b) {
		c := make([]byte, len(b), max(2*cap(b), len(b)+k))
		copy(c, b)
		b = c
	}
	return b[:len(b)+k]
}

// readError turns a read failure into the error Decode returns.
func readError(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return FormatError("truncated file")
	}
	return err
}

// inflate decompresses and unfilters the IDAT data into the image.
func (st *readState) inflate(hd header, idat []byte, into image.Image, packedRGB bool) (image.Image, error) {
	rowBytes := int64(hd.w) * int64(hd.bpp)
	// h*(1+rowBytes) can overflow an int64 (2³¹ rows of 2³³ bytes): divide.
	if limit := maxInflation*int64(len(idat)) + 1024; 1+rowBytes > limit || int64(hd.h) > limit/(1+rowBytes) {
		return nil, FormatError("not enough pixel data")
	}
	// The inflated rows, and the image (4 bytes a pixel for RGB), must
	// be addressable by an int: on a 32-bit platform 32768×65536 grey
	// was a negative size.
	if (1+4*int64(hd.w))*int64(hd.h) > math.MaxInt {
		return nil, FormatError(fmt.Sprintf("%d×%d image too large for this platform", hd.w, hd.h))
	}
	n := int(rowBytes)
	stride := 1 + n
	total := stride * hd.h
	// Room for the image turned a quarter too (its rows are as many
	// bytes as its columns here): a batch of landscape and portrait
	// photographs took a new buffer, fresh memory, at each turn
	// (768×512: 1,180,160 bytes, 512×768: 1,180,416).
	turned := max(int64(total), min((1+int64(hd.h)*int64(hd.bpp))*int64(hd.w), math.MaxInt))
	var raw []byte
	var packed *rgbrows.Image
	if packedRGB && hd.colorType == 2 {
		// The image is the rows: in into's memory, or in new memory
		// (st.raw stays for the next file, which may be read before
		// this image is given up).
		if m, ok := into.(*rgbrows.Image); ok && len(m.Mem) >= total {
			raw = m.Mem[:total]
		} else {
			raw = make([]byte, total, turned)
		}
		packed = &rgbrows.Image{Pix: raw[1:], Stride: stride, Rect: image.Rect(0, 0, hd.w, hd.h), Mem: raw[:cap(raw)]}
	} else {
		if cap(st.raw) < total {
			st.raw = make([]byte, total, turned)
		}
		raw = st.raw[:total]
	}
	if st.inf == nil {
		st.inf = new(inflater)
	}
	if err := st.inf.inflate(idat, raw); err != nil && !(err == errTrailing && st.idatEndsAt(st.inf.end)) {
		return nil, err
	}
	var pix []byte
	var img image.Image
	r := image.Rect(0, 0, hd.w, hd.h)
	// A compact image of the kind with pixels enough (a 512×768 one for a
	// 768×512 file, say) is reused, reshaped if need be.
	switch m := into.(type) {
	case *image.Gray:
		if need := hd.w * hd.h; hd.colorType == 0 && compact(m.Rect, m.Stride, len(m.Pix), 1) && len(m.Pix) >= need {
			pix, img = m.Pix[:need], m
			if m.Rect != r {
				img = &image.Gray{Pix: pix, Stride: hd.w, Rect: r}
			}
		}
	case *image.RGBA:
		if need := 4 * hd.w * hd.h; hd.colorType == 2 && compact(m.Rect, m.Stride, len(m.Pix), 4) && len(m.Pix) >= need {
			pix, img = m.Pix[:need], m
			if m.Rect != r {
				img = &image.RGBA{Pix: pix, Stride: 4 * hd.w, Rect: r}
			}
		}
	case *image.NRGBA:
		if need := 4 * hd.w * hd.h; hd.colorType == 6 && compact(m.Rect, m.Stride, len(m.Pix), 4) && len(m.Pix) >= need {
			pix, img = m.Pix[:need], m
			if m.Rect != r {
				img = &image.NRGBA{Pix: pix, Stride: 4 * hd.w, Rect: r}
			}
		}
	}
	switch {
	case packed != nil:
		img = packed
	case img != nil:
	case hd.colorType == 0:
		m := image.NewGray(r)
		pix, img = m.Pix, m
	case hd.colorType == 2:
		m := image.NewRGBA(r)
		pix, img = m.Pix, m
	default:
		m := image.NewNRGBA(r)
		pix, img = m.Pix, m
	}
	// The rows are unfiltered in place, each against the one before (the
	// first against zeros), and copied into the image (not a packed
	// one: they are its rows).
	if cap(st.prev) < n {
		st.prev = make([]byte, n)
	}
	prev := st.prev[:n]
	clear(prev)
	for y := 0; y < hd.h; y++ {
		cur := raw[y*stride : (y+1)*stride]
		if rows := greyBandRows(raw[y*stride:], hd.h-y, stride, prev, hd.bpp); rows > 0 {
			// Sixteen or eight grey rows at once, copied one by one.
			for k := range rows - 1 {
				copy(pix[n*(y+k):], raw[(y+k)*stride+1:(y+k+1)*stride])
			}
			y += rows - 1
			cur = raw[y*stride : (y+1)*stride]
		} else if y+1 < hd.h && hd.bpp == 1 && n > 0 && (cur[0] == 3 || cur[0] == 4) && (raw[(y+1)*stride] == 3 || raw[(y+1)*stride] == 4) {
			// Two grey rows of Average or Paeth at once (their two
			// chains of bytes interleaved), copied below one by one.
			next := raw[(y+1)*stride : (y+2)*stride]
			unfilterPair(cur[0] == 4, next[0] == 4, cur[1:], next[1:], prev)
			copy(pix[n*y:], cur[1:])
			y++
			cur = next
		} else if y+8 <= hd.h && hd.bpp == 3 && unfilterRGBBand(raw[y*stride:(y+8)*stride], stride, prev) {
			// Eight RGB rows at once.
			for k := range 7 {
				copyRow(hd, pix, raw, y+k, packed)
			}
			y += 7
			cur = raw[y*stride : (y+1)*stride]
		} else if y+1 < hd.h && hd.bpp == 3 && cur[0] == raw[(y+1)*stride] && unfilterRGBPair(cur[0], cur[1:], raw[(y+1)*stride+1:(y+2)*stride], prev) {
			// Two RGB rows of Average or Paeth at once, the same way.
			copyRow(hd, pix, raw, y, packed)
			y++
			cur = raw[y*stride : (y+1)*stride]
		} else if err := unfilter(cur[0], cur[1:], prev, hd.bpp); err != nil {
			return nil, err
		}
		prev = cur[1:]
		copyRow(hd, pix, raw, y, packed)
	}
	return img, nil
}

// copyRow copies row y of the unfiltered rows raw (each a filter byte and
// the row's bytes) into the image's pixels pix: RGB rows to RGBA; none
// into a packed image, whose rows they are.
func copyRow(hd header, pix, raw []byte, y int, packed *rgbrows.Image) {
	if packed != nil {
		return
	}
	n := hd.w * hd.bpp
	stride := 1 + n
	cur := raw[y*stride : (y+1)*stride]
	if hd.colorType == 2 {
		row := pix[4*hd.w*y : 4*hd.w*(y+1)]
		// 4 pixels a byte shuffle where the CPU has it (a byte at a
		// time, this copy was 4 % of a colour encode from PNG).
		k := rgbrows.ToRGBA(row, raw[y*stride+1:]) // the next row's bytes may be read, not used
		for i, j := 3*k, 4*k; i+2 < n && j+3 < len(row); i, j = i+3, j+4 {
			row[j], row[j+1], row[j+2], row[j+3] = cur[1+i], cur[2+i], cur[3+i], 0xff
		}
	} else {
		copy(pix[n*y:], cur[1:])
	}
}

// compact reports whether an image of bounds r, stride and n bytes of
// pixels, px bytes a pixel, holds its pixels alone: at the origin, rows
// end to end, no bytes beyond (a sub-image's reach into its parent's).
func compact(r image.Rectangle, stride, n, px int) bool {
	return r.Min == image.Point{} && stride == px*r.Dx() && n == stride*r.Dy()
}

// unfilter reverses the filter of one row in place (PNG specification,
// section 9): prev is the previous row, unfiltered, or zeros; bpp the
// bytes per pixel.
func unfilter(filter byte, row, prev []byte, bpp int) error {
	prev = prev[:len(row)]
	switch filter {
	case 0:
	case 1: // Sub
		// One byte lane at a time, the left byte in a register (not
		// loaded back from the row just stored).
		for lane := 0; lane < bpp && lane < len(row); lane++ {
			var a byte
			for i := lane; i < len(row); i += bpp {
				a += row[i]
				row[i] = a
			}
		}
	case 2: // Up
		for i, p := range prev {
			row[i] += p
		}
	case 3: // Average
		if i := unfilterRGB(filter, row, prev, bpp); i > 0 {
			// The kernel's rows of 3-byte pixels, its last pixel here.
			for ; i < len(row); i++ {
				row[i] = byte(avgByte(int(row[i-3]), int(prev[i]), int(row[i])))
			}
			break
		}
		for lane := 0; lane < bpp && lane < len(row); lane++ {
			a := 0
			for i := lane; i < len(row); i += bpp {
				a = (int(row[i]) + (a+int(prev[i]))>>1) & 0xff
				row[i] = byte(a)
			}
		}
	case 4: // Paeth
		if i := unfilterRGB(filter, row, prev, bpp); i > 0 {
			for ; i < len(row); i++ {
				row[i] = byte(paethByte(int(row[i-3]), int(prev[i]), int(prev[i-3]), int(row[i])))
			}
			break
		}
		// One byte lane at a time: a (left, then the result) and c
		// (upper left) stay in registers.
		for lane := 0; lane < bpp && lane < len(row); lane++ {
			a, c := 0, 0
			for i := lane; i < len(row); i += bpp {
				b := int(prev[i])
				a = paethByte(a, b, c, int(row[i]))
				row[i] = byte(a)
				c = b
			}
		}
	default:
		return FormatError(fmt.Sprintf("bad filter type %d", filter))
	}
	return nil
}

// greyBandRows unfilters the first rows of raw (left rows, bpp bytes a
// pixel) by unfilterGreyBand16 or else unfilterGreyBand and returns how
// many it did: 16, 8, or 0 where neither applies.
func greyBandRows(raw []byte, left, stride int, prev []byte, bpp int) int {
	switch {
	case bpp != 1:
		return 0
	case left >= greyBand16 && unfilterGreyBand16(raw[:greyBand16*stride], stride, prev):
		return greyBand16
	case left >= greyBand && unfilterGreyBand(raw[:greyBand*stride], stride, prev):
		return greyBand
	}
	return 0
}

// greyBand is the rows unfilterGreyBand unfilters at once.
const greyBand = 8

// unfilterGreyBand unfilters the greyBand grey rows of band (each a filter
// byte and the row's stride-1 bytes), the first below prev, and reports
// whether it did: where the kernel runs (hasAVX), for rows of 24 bytes or
// more and known filters. A row's bytes wait on their left neighbours
// (Average, Paeth: a chain of ~10 dependent steps a byte, two rows at a
// time by unfilterPair, ~8 cycles a byte); along the band's diagonals
// (byte t-k of row k at step t) the eight rows' bytes of a step depend
// only on the step before, and go in one vector. The triangles before the
// kernel's first step and after its last are unfiltered here, row by row.
func unfilterGreyBand(band []byte, stride int, prev []byte) bool {
	n := stride - 1
	if !hasAVX || n < greyBand+16 || len(band) < greyBand*stride || len(prev) < n {
		return false
	}
	bits, ok := bandFilters(band, stride, greyBand)
	if !ok {
		return false // left to unfilter's error
	}
	if bits[0]|bits[1] == 0 {
		// No byte waits on its left neighbour through a Paeth or
		// Average chain: None rows need nothing, Up rows an add a byte,
		// Sub rows one add a byte in a register, all cheaper row by row
		// than the kernel's ~3 cycles a byte (a grey PNG written with
		// filter None, as some writers do, spent 3 % of an 8×8 batch
		// encode unfiltering nothing here).
		return false
	}
	var masks [4][8]uint16 // Paeth, Average, Sub, Up words; None none
	for m, b := range bits {
		for k := range greyBand {
			if b&(1<<k) != 0 {
				masks[m][k] = 0xffff
			}
		}
	}
	// The kernel's steps t0 = greyBand to end-1: byte t of row 0 within
	// the row, byte t0-k of row k its first.
	const t0 = greyBand
	chunks := (n - t0) / 8
	var state [2][8]uint16 // left and up-left bytes at step t0
	greyBefore(band, stride, prev, greyBand, t0, func(k int, a, c byte) {
		state[0][k], state[1][k] = uint16(a), uint16(c)
	})
	unfilterGrey8(&band[1+t0], stride, &prev[t0], chunks, &masks, &state)
	greyAfter(band, stride, prev, greyBand, t0+8*chunks)
	return true
}

// bandFilters reads the filter bytes of a band's first rows rows (at most
// 16) as the band kernels take them: bit k of masks[0], [1], [2] and [3]
// for row k filtered with Paeth, Average, Sub and Up (None: no bit); false
// for an unknown filter.
func bandFilters(band []byte, stride, rows int) (masks [4]uint16, ok bool) {
	for k := range rows {
		switch band[k*stride] {
		case 0:
		case 1:
			masks[2] |= 1 << k
		case 2:
			masks[3] |= 1 << k
		case 3:
			masks[1] |= 1 << k
		case 4:
			masks[0] |= 1 << k
		default:
			return masks, false
		}
	}
	return masks, true
}

// greyBefore unfilters the triangle of a band of grey rows before a
// kernel's first step t0 (bytes 0 to t0-k-1 of row k) and hands each
// row's last byte there and the byte above it to state.
func greyBefore(band []byte, stride int, prev []byte, rows, t0 int, state func(k int, a, c byte)) {
	n := stride - 1
	up := prev[:n]
	for k := range rows {
		row := band[k*stride+1 : (k+1)*stride]
		unfilterSpan(band[k*stride], row, up, 0, t0-k, 1)
		state(k, row[t0-k-1], up[t0-k-1])
		up = row
	}
}

// greyAfter unfilters the triangle of a band of grey rows after a
// kernel's last step end-1 (bytes end-k on of row k).
func greyAfter(band []byte, stride int, prev []byte, rows, end int) {
	n := stride - 1
	up := prev[:n]
	for k := range rows {
		row := band[k*stride+1 : (k+1)*stride]
		unfilterSpan(band[k*stride], row, up, end-k, n, 1)
		up = row
	}
}

// greyBand16 is the rows unfilterGreyBand16 unfilters at once.
const greyBand16 = 16

// unfilterGreyBand16 is unfilterGreyBand for 16 rows, where the kernel
// runs (hasAVX512VBMI) and the rows are 32 bytes or more: the 8-row
// kernel is bound by its chain of dependent steps (~16 cycles a step),
// which this one's steps take for 16 bytes.
func unfilterGreyBand16(band []byte, stride int, prev []byte) bool {
	n := stride - 1
	if !hasAVX512VBMI || n < greyBand16+16 || len(band) < greyBand16*stride || len(prev) < n {
		return false
	}
	masks, ok := bandFilters(band, stride, greyBand16)
	if !ok {
		return false // left to unfilter's error
	}
	if masks[0]|masks[1] == 0 {
		return false // cheaper row by row (unfilterGreyBand)
	}
	const t0 = greyBand16
	chunks := (n - t0) / 8
	var state [2][16]uint32
	greyBefore(band, stride, prev, greyBand16, t0, func(k int, a, c byte) {
		state[0][k], state[1][k] = uint32(a), uint32(c)
	})
	unfilterGrey16(&band[1+t0], stride, &prev[t0], chunks, &masks, &state)
	greyAfter(band, stride, prev, greyBand16, t0+8*chunks)
	return true
}

// unfilterRGBBand is unfilterGreyBand for 8 rows of 3-byte pixels, where
// the kernel runs (hasAVX512BW: a ZMM register holds a pixel of each row)
// and the rows are 18 pixels or more. The RGB pair kernels made a pixel a
// step, ~46 instructions for two rows' pixels.
func unfilterRGBBand(band []byte, stride int, prev []byte) bool {
	n := stride - 1
	w := n / 3
	const t0 = 11 // the kernel's first step: pixel t0-rgbLag[k] of row k
	if !hasAVX512BW || n%3 != 0 || w < t0+10 || len(band) < 8*stride || len(prev) < n {
		return false
	}
	bits, ok := bandFilters(band, stride, 8)
	if !ok {
		return false // left to unfilter's error
	}
	var masks [5][32]uint16 // Paeth, Average, Sub, Up; the state's bytes
	var filter [8]byte
	for k := range filter {
		filter[k] = band[k*stride]
		for c := range 3 {
			for m, b := range bits {
				if b&(1<<k) != 0 {
					masks[m][4*k+c] = 0xffff
				}
			}
			masks[4][4*k+c] = 0xff
		}
	}
	row := func(k int) []byte { return band[k*stride+1 : (k+1)*stride] }
	// Steps t0 to end-1, pixel t0-rgbLag[k] of row k at step t0; the
	// kernel loads and stores 4 bytes a pixel, and loads step end's: the
	// last two pixels of a row are left to the triangle after.
	chunks := (w - 2 - t0) / 8
	end := t0 + 8*chunks
	var state [3][32]uint16 // left and up-left pixels at step t0, left two steps before
	up := prev[:n]
	for k := range filter {
		p := t0 - rgbLag[k] // the row's first pixel in the kernel
		unfilterSpan(filter[k], row(k), up, 0, 3*p, 3)
		for c := range 3 {
			i := 3*(p-1) + c
			state[0][4*k+c], state[1][4*k+c] = uint16(row(k)[i]), uint16(up[i])
			if i >= 3 {
				state[2][4*k+c] = uint16(row(k)[i-3])
			}
		}
		up = row(k)
	}
	unfilterRGB8(&band[1+3*t0], stride, &prev[3*t0], chunks, &masks, &state)
	up = prev[:n]
	for k := range filter {
		unfilterSpan(filter[k], row(k), up, 3*(end-rgbLag[k]), n, 3)
		up = row(k)
	}
	return true
}

// rgbLag is how many pixels row k of unfilterRGBBand's kernel is behind
// row 0: rows 2L and 2L+1 share a 128-bit lane, 1 apart, and each lane is
// 3 behind the one below, so that the pixel above a lane's first row was
// made two steps before.
var rgbLag = [8]int{0, 1, 3, 4, 6, 7, 9, 10}

// unfilterSpan unfilters bytes from to to-1 of row (filter 0-4, bpp
// bytes a pixel), its bytes before from and up's bytes done.
func unfilterSpan(filter byte, row, up []byte, from, to, bpp int) {
	if from >= to {
		return
	}
	row, up = row[:to], up[:to]
	// The first pixel's bytes have no left neighbours.
	for ; from < bpp && from < to; from++ {
		switch filter {
		case 2, 4:
			row[from] += up[from]
		case 3:
			row[from] += up[from] >> 1
		}
	}
	switch filter {
	case 1:
		for i := from; i < to; i++ {
			row[i] += row[i-bpp]
		}
	case 2:
		for i := from; i < to; i++ {
			row[i] += up[i]
		}
	case 3:
		for i := from; i < to; i++ {
			row[i] = byte(avgByte(int(row[i-bpp]), int(up[i]), int(row[i])))
		}
	case 4:
		for i := from; i < to; i++ {
			row[i] = byte(paethByte(int(row[i-bpp]), int(up[i]), int(up[i-bpp]), int(row[i])))
		}
	}
}

// unfilterPair unfilters two rows of one byte a pixel, each filtered
// with Average or Paeth (paeth0, paeth1), r1 below r0 below prev: byte i
// of r0, then byte i-1 of r1, whose up and up-left bytes are r0's done.
// Each byte waits on the one to its left; the two rows' chains overlap
// (one row at a time, a grey photograph's Average and Paeth rows left the
// processor idle between the dependent steps).
func unfilterPair(paeth0, paeth1 bool, r0, r1, prev []byte) {
	n := len(r0)
	r1, prev = r1[:n], prev[:n]
	// Byte 0 of r0; then bytes i of r0 and i-1 of r1 (whose up byte is
	// r0's byte i-1, just made: a0 before it is updated); then r1's last.
	// One loop per pair of filters, without a branch on them inside.
	var a0, a1, c0, c1 int // left and up-left bytes
	if paeth0 {
		a0 = paethByte(0, int(prev[0]), 0, int(r0[0]))
	} else {
		a0 = avgByte(0, int(prev[0]), int(r0[0]))
	}
	r0[0], c0 = byte(a0), int(prev[0])
	switch {
	case !paeth0 && !paeth1:
		for i := 1; i < n; i++ {
			up1 := a0
			a0 = avgByte(a0, int(prev[i]), int(r0[i]))
			r0[i] = byte(a0)
			a1 = avgByte(a1, up1, int(r1[i-1]))
			r1[i-1] = byte(a1)
		}
	case paeth0 && paeth1:
		for i := 1; i < n; i++ {
			up1, b := a0, int(prev[i])
			a0 = paethByte(a0, b, c0, int(r0[i]))
			r0[i], c0 = byte(a0), b
			a1 = paethByte(a1, up1, c1, int(r1[i-1]))
			r1[i-1], c1 = byte(a1), up1
		}
	case paeth0:
		for i := 1; i < n; i++ {
			up1, b := a0, int(prev[i])
			a0 = paethByte(a0, b, c0, int(r0[i]))
			r0[i], c0 = byte(a0), b
			a1 = avgByte(a1, up1, int(r1[i-1]))
			r1[i-1] = byte(a1)
		}
	default:
		for i := 1; i < n; i++ {
			up1 := a0
			a0 = avgByte(a0, int(prev[i]), int(r0[i]))
			r0[i] = byte(a0)
			a1 = paethByte(a1, up1, c1, int(r1[i-1]))
			r1[i-1], c1 = byte(a1), up1
		}
	}
	if paeth1 {
		a1 = paethByte(a1, a0, c1, int(r1[n-1]))
	} else {
		a1 = avgByte(a1, a0, int(r1[n-1]))
	}
	r1[n-1] = byte(a1)
}

// avgByte is Average's byte from the raw byte and the left a and up b
// bytes.
func avgByte(a, b, raw int) int { return (raw + (a+b)>>1) & 0xff }

// paethByte is Paeth's byte from the raw byte and the left a, up b and
// up-left c bytes: the one of a, b, c nearest p = a+b-c, ties to a then
// b. Written to inline (cost 58 of 80: a call per byte was a third of a
// grey PNG's unfiltering) and without branches (the choice is random on
// photographs: max, min and the ifs compile to conditional moves).
func paethByte(a, b, c, raw int) int {
	pa, pb := b-c, a-c // p-a and p-b
	pc := max(pa+pb, -pa-pb)
	pa, pb = max(pa, -pa), max(pb, -pb)
	if pb > pc {
		b = c
	}
	if pa > min(pb, pc) {
		a = b
	}
	return (a + raw) & 0xff
}
