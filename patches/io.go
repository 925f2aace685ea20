package patches

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif"  // register the GIF decoder
	_ "image/jpeg" // register the JPEG decoder
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/disintegration/imaging"
	_ "golang.org/x/image/bmp" // register the BMP decoder
	"golang.org/x/image/tiff"
	_ "golang.org/x/image/webp" // register the WebP decoder

	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/netpbm"
	"github.com/spcalab/spca/internal/pngfast"
	"github.com/spcalab/spca/internal/rgbrows"
)

// DefaultMaxPixels is the largest image, in pixels, that Load and Decode
// accept unless told otherwise by MaxPixels: 100 megapixels on 64-bit
// platforms (a 16384×16384 image, 268 megapixels, is refused). Decoding
// needs memory in proportion to the pixels, and a PNG of a few hundred
// kilobytes can declare 16384×16384; see the README for the memory per
// pixel.
//
// On 32-bit platforms it is 2^23 - 1 (8.4 megapixels, a 3840×2160 frame
// fits), math.MaxInt/256: 2 GiB, half the address space, at 256 bytes a
// pixel, more than the codec's most measured (session 31, peak resident
// memory on amd64 between 6 and 25 megapixels: decode 7-23 bytes a pixel
// with 8×8 models, 72 with 2×2 colour, 169 with 1×1 colour; encode 29-37,
// 138 and 250). At 10^8 pixels those are 0.7 to 25 GB: an .spc file of a
// few hundred bytes declaring just under 10^8 pixels made a 32-bit
// process die out of memory (a fatal error, not an error value).
const DefaultMaxPixels = min(100_000_000, math.MaxInt/256)

// Extensions returns the file name extensions (lower case, with the dot)
// of the image formats Load and Decode read: what a tool takes from a
// directory of images.
func Extensions() []string {
	return []string{".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".webp", ".pgm", ".ppm", ".pnm"}
}

var (
	// ErrNotImage is returned, wrapped, by Load and Decode for data in no
	// registered image format.
	ErrNotImage = errors.New("patches: not an image")
	// ErrTooLarge is returned, wrapped, by Load and Decode for images with
	// more pixels than allowed, before their pixels are decoded.
	ErrTooLarge = errors.New("patches: image too large")
)

type loadConfig struct {
	maxPixels  int64
	autoOrient bool
	assumeSRGB bool
	into       image.Image
	noAlpha    *bool
	packedRGB  bool
}

// LoadOption sets a rarely needed parameter of Load and Decode.
type LoadOption func(*loadConfig)

// MaxPixels sets the largest number of pixels Load and Decode accept
// (DefaultMaxPixels by default). The size is read from the file header
// before anything is decoded.
func MaxPixels(n int) LoadOption {
	return func(c *loadConfig) { c.maxPixels = int64(n) }
}

// Into lets Load and Decode write the pixels into the memory of img, an
// image the caller no longer needs, when the file decodes to an image of
// img's type (8-bit grey, RGB or RGBA PNG, or 8-bit PGM) of no more
// pixels and img holds its pixels alone (origin 0, rows end to end: not a
// sub-image); the image returned has the file's bounds. Otherwise they
// allocate as usual. A batch that
// loads image after image reuses one image's memory: a fresh 768×512
// grey image was more than half of the memory a batch encode touched per
// image, each page of it faulted in and cleared.
func Into(img image.Image) LoadOption {
	return func(c *loadConfig) { c.into = img }
}

// NoAlpha has Load and Decode set *known to whether the file they read
// holds no alpha: an 8-bit grey or RGB PNG (without a tRNS chunk), a PGM
// or a PPM. Its image is then opaque without a look at its pixels (a
// batch encoder checked every input). False says nothing either way.
func NoAlpha(known *bool) LoadOption {
	return func(c *loadConfig) { c.noAlpha = known }
}

// PackedRGB has Load and Decode return an 8-bit RGB PNG or PPM as an
// opaque image of 3 bytes a pixel, in the rows the file stores (the
// PNG's after their filter bytes), instead of copying them into an
// *image.RGBA; Into then takes such an image back. Its At gives what
// the *image.RGBA's would, and the codec's encoders and this package's
// conversions read its rows as they are: what a batch encoder loads.
// Files of other kinds come back as usual.
func PackedRGB() LoadOption {
	return func(c *loadConfig) { c.packedRGB = true }
}

// AutoOrientation sets whether JPEG images are rotated and flipped upright
// according to their EXIF orientation tag (true by default).
func AutoOrientation(on bool) LoadOption {
	return func(c *loadConfig) { c.autoOrient = on }
}

// Load decodes the image file at path; see Decode. Errors name the path.
func Load(path string, opts ...LoadOption) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("patches: load: %w", err)
	}
	defer f.Close()
	img, err := decode(f, opts)
	if err != nil {
		return nil, wrapName(err, path)
	}
	return img, nil
}

// Decode decodes an image in any of the formats PNG, JPEG, GIF (first
// frame), TIFF, BMP, WebP and binary PGM/PPM, at 8 or 16 bits per sample. The result keeps
// the decoder's type, so 16-bit images stay *image.Gray16, *image.RGBA64 or
// *image.NRGBA64.
//
// The size is read from the header first and images of more than
// DefaultMaxPixels pixels (see MaxPixels) are rejected with ErrTooLarge;
// data in no known format give ErrNotImage.
//
// JPEG images are turned upright according to their EXIF orientation tag
// (see AutoOrientation), using imaging.Decode with
// imaging.AutoOrientation(true). A JPEG turned this way comes back as
// *image.NRGBA, or as *image.Gray if it was a grey JPEG, instead of the
// *image.YCbCr of the JPEG decoder. The EXIF tag of other formats is
// ignored.
//
// Decode needs to read the data twice: if r is an io.ReadSeeker it seeks
// back, otherwise it reads everything into memory first.
func Decode(r io.Reader, opts ...LoadOption) (image.Image, error) {
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		// The first bytes first: data in no known format (an endless
		// stream such as /dev/zero, read whole until killed) are
		// refused before the rest is read.
		head := make([]byte, sniffBytes)
		n, err := io.ReadFull(r, head)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("patches: decode: %w", err)
		}
		head = head[:n]
		_, format, err := image.DecodeConfig(bytes.NewReader(head))
		if errors.Is(err, image.ErrFormat) {
			return nil, wrapName(&nameError{sentinel: ErrNotImage, msg: "unknown format"}, "")
		}
		// Kept as read, for the passes after the first; read only as far
		// as the decoders go (io.ReadAll here read an image followed by
		// endless data, an image header and /dev/zero on standard
		// input, until the process ran out of memory), and once the
		// header is read no further than an image of its size can take.
		cfg := config(opts)
		p := &replay{r: r, buf: head, budget: streamLimit(cfg.maxPixels)}
		p.limit = p.budget
		if format == "jpeg" {
			// image/jpeg skips any bytes between segments, and its header
			// (up to the frame header in JFIF files, else up to the
			// first scan) may come after any number of them.
			p.limit = min(p.budget, jpegHeaderLimit)
			p.size = "and no JPEG header (up to the first scan) within them"
		}
		rs = p
	}
	img, err := decode(rs, opts)
	if err != nil {
		return nil, wrapName(err, "")
	}
	return img, nil
}

// jpegHeaderLimit is the most Decode reads of a stream in JPEG format
// before the end of its header (the image's size): metadata segments
// (EXIF, ICC profiles, ...) take far less.
const jpegHeaderLimit = 64 << 20

// sniffBytes is how much of a stream Decode reads to recognise its
// format (the registered formats' magic numbers are shorter) before it
// reads the rest.
const sniffBytes = 64

// nameError carries the message of a decoding failure until the caller
// adds the name of what failed.
type nameError struct {
	sentinel error  // ErrNotImage, ErrTooLarge or nil
	msg      string // detail
	err      error  // cause, or nil
}

func (e *nameError) Error() string { return e.msg }

func wrapName(err error, name string) error {
	var ne *nameError
	if !errors.As(err, &ne) {
		return err
	}
	var parts []string
	for _, s := range []string{name, ne.msg} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	where := strings.Join(parts, ": ")
	switch {
	case ne.sentinel != nil:
		return fmt.Errorf("%w: %s", ne.sentinel, where)
	case ne.err != nil && where != "":
		return fmt.Errorf("patches: decode %s: %w", where, ne.err)
	case ne.err != nil:
		return fmt.Errorf("patches: decode: %w", ne.err)
	}
	return fmt.Errorf("patches: decode %s", where)
}

// config returns the options opts set.
func config(opts []LoadOption) loadConfig {
	cfg := loadConfig{maxPixels: DefaultMaxPixels, autoOrient: true}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// streamLimit is the most Decode keeps of a stream under a budget of
// maxPixels (none if it is not positive): 64 MB and 16 bytes a pixel, the
// size of a 16-bit RGBA image stored without compression twice over.
func streamLimit(maxPixels int64) int64 {
	if maxPixels <= 0 || maxPixels > (math.MaxInt64-64<<20)/16 {
		return math.MaxInt64
	}
	return 64<<20 + 16*maxPixels
}

// replay reads a stream and keeps what it read, so that the decoders can
// seek back to its start and read it again: a stream is read only as far
// as they go, at most limit bytes.
type replay struct {
	r      io.Reader
	buf    []byte // what was read of r
	off    int    // the position of the next Read, at most len(buf)
	limit  int64
	budget int64  // the limit of the pixel budget
	err    error  // of r, once it failed or ended
	size   string // why the limit, if not the budget: "far more than a 3×2 image takes"
}

// declared sets the limit to what an image of w×h pixels can take
// (streamLimit of its pixels), within the budget.
func (p *replay) declared(w, h int) {
	p.limit, p.size = p.budget, ""
	if l := streamLimit(int64(w) * int64(h)); l < p.budget {
		p.limit, p.size = l, fmt.Sprintf("far more than a %d×%d image takes", w, h)
	}
}

func (p *replay) Read(b []byte) (int, error) {
	if p.off < len(p.buf) {
		n := copy(b, p.buf[p.off:])
		p.off += n
		return n, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	if int64(len(p.buf)) >= p.limit {
		if p.size != "" {
			// Not ErrTooLarge: a larger budget would not help.
			return 0, fmt.Errorf("a stream of more than %d bytes, %s", p.limit, p.size)
		}
		return 0, fmt.Errorf("%w: a stream of more than %d bytes, the most read for the pixel budget", ErrTooLarge, p.limit)
	}
	b = b[:min(int64(len(b)), p.limit-int64(len(p.buf)))]
	n, err := p.r.Read(b)
	p.buf = append(p.buf, b[:n]...)
	p.off += n
	p.err = err
	return n, err
}

// Seek seeks within what was read: to its start, say.
func (p *replay) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += int64(p.off)
	case io.SeekEnd:
		return 0, errors.New("patches: seek from the end of a stream")
	}
	if offset < 0 || offset > int64(len(p.buf)) {
		return 0, fmt.Errorf("patches: seek to %d in a stream of %d bytes read", offset, len(p.buf))
	}
	p.off = int(offset)
	return offset, nil
}

func decode(rs io.ReadSeeker, opts []LoadOption) (image.Image, error) {
	cfg := config(opts)
	noAlpha := func(known bool) {
		if cfg.noAlpha != nil {
			*cfg.noAlpha = known
		}
	}
	noAlpha(false)
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, &nameError{msg: "seek", err: err}
	}
	if cfg.maxPixels > 0 {
		// 8-bit grey, RGB and RGBA PNGs without a profile, in one pass
		// (image/png's pixels); anything else, errors included, is
		// decoded below in image/png's words.
		img, err := pngfast.Decode(rs, &pngfast.DecodeOptions{MaxPixels: cfg.maxPixels, Into: cfg.into, PackedRGB: cfg.packedRGB})
		if err == nil {
			// Grey or RGB (pngfast reads no tRNS), else NRGBA.
			switch img.(type) {
			case *image.Gray, *image.RGBA, *rgbrows.Image:
				noAlpha(true)
			}
			return img, nil
		}
		if errors.Is(err, pngfast.ErrTooLarge) {
			// Said here: on a 32-bit platform image/png refuses a header
			// of 20000×20000 as a "dimension overflow" before the
			// budget below is checked.
			return nil, &nameError{sentinel: ErrTooLarge, msg: strings.TrimPrefix(err.Error(), pngfast.ErrTooLarge.Error()+": ")}
		}
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return nil, &nameError{msg: "seek", err: err}
		}
	}
	hdr, format, err := image.DecodeConfig(rs)
	switch {
	case errors.Is(err, image.ErrFormat):
		return nil, &nameError{sentinel: ErrNotImage, msg: "unknown format"}
	case err != nil:
		return nil, &nameError{msg: "header", err: err}
	}
	if hdr.Width <= 0 || hdr.Height <= 0 {
		return nil, &nameError{msg: fmt.Sprintf("%s header: empty image %d×%d", format, hdr.Width, hdr.Height)}
	}
	if n := int64(hdr.Width) * int64(hdr.Height); n > cfg.maxPixels {
		return nil, &nameError{sentinel: ErrTooLarge,
			msg: fmt.Sprintf("%d×%d is %d pixels, more than %d", hdr.Width, hdr.Height, n, cfg.maxPixels)}
	}
	if p, ok := rs.(*replay); ok {
		// Now no further than an image of the declared size can take:
		// image/jpeg skips any bytes between segments, so a JPEG header
		// followed by endless data was read to the limit of the whole
		// budget (1.66 GB by default).
		p.declared(hdr.Width, hdr.Height)
	}
	if !cfg.assumeSRGB && (format == "png" || format == "jpeg") {
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return nil, &nameError{msg: "seek", err: err}
		}
		// A profile that cannot be read is left to the decoder's errors.
		if p, _ := embeddedProfile(rs, format); p != nil {
			if ok, desc := profileIsSRGB(p); !ok {
				return nil, &nameError{sentinel: ErrNotSRGB, msg: fmt.Sprintf("%s with the ICC profile %q: "+
					"convert it to sRGB first, or read its values as sRGB anyway (AssumeSRGB)", format, desc)}
			}
		}
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return nil, &nameError{msg: "seek", err: err}
	}
	var img image.Image
	switch {
	case format == "jpeg" && cfg.autoOrient:
		img, err = imaging.Decode(rs, imaging.AutoOrientation(true))
	case format == "pgm" || format == "ppm":
		if cfg.packedRGB {
			img, err = netpbm.DecodePacked(rs, cfg.into)
		} else {
			img, err = netpbm.DecodeInto(rs, cfg.into)
		}
	default:
		img, _, err = image.Decode(rs)
	}
	if err != nil {
		msg := format // unless the decoder's message already names it
		if strings.HasPrefix(err.Error(), format+":") {
			msg = ""
		}
		return nil, &nameError{msg: msg, err: err}
	}
	if b := img.Bounds(); b.Empty() {
		// A GIF whose first frame is empty within a non-empty screen
		// (FuzzDecode): every later step blamed the output ("png:
		// invalid image size: 48x0") or the encoder.
		return nil, &nameError{msg: fmt.Sprintf("%s: empty image %d×%d", format, b.Dx(), b.Dy())}
	}
	if format == "pgm" || format == "ppm" {
		noAlpha(true)
	}
	if format == "jpeg" && hdr.ColorModel == color.GrayModel {
		if _, ok := img.(*image.Gray); !ok {
			// imaging's transforms return NRGBA; a grey JPEG stays grey.
			g := image.NewGray(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
			draw.Draw(g, g.Rect, img, img.Bounds().Min, draw.Src)
			img = g
		}
	}
	return img, nil
}

type saveConfig struct {
	pngLevel png.CompressionLevel
	opaque   bool
}

// SaveOption sets a rarely needed parameter of Save.
type SaveOption func(*saveConfig)

// PNGCompression sets the compression level of PNG files
// (png.DefaultCompression by default). At png.BestSpeed grey and opaque
// RGB images are written by internal/pngfast: Sub-filtered rows, Huffman
// coding only, about 8× faster than image/png at that level for ~3 % more bytes.
func PNGCompression(level png.CompressionLevel) SaveOption {
	return func(c *saveConfig) { c.pngLevel = level }
}

// Opaque asserts that img is opaque (an RGBA image's alpha all 0xff, as
// a colour decode writes it), so that a PNG at png.BestSpeed and a
// pixmap are written as RGB without looking at the alpha bytes; an RGBA
// image that is not opaque loses its alpha.
func Opaque() SaveOption {
	return func(c *saveConfig) { c.opaque = true }
}

// Save writes img to path as PNG, as TIFF (Deflate-compressed) if the
// extension is .tif or .tiff, or as a binary greymap or pixmap (PGM for
// *image.Gray and *image.Gray16, PPM otherwise; uncompressed, as djpeg
// writes them) if it is .pgm, .ppm or .pnm; other extensions are an error. 16-bit images
// (*image.Gray16, *image.RGBA64, *image.NRGBA64) are written with 16 bits
// per sample, *image.Gray as 8-bit grey, and other images as 8-bit RGB(A).
//
// The file is written atomically: the image goes to a temporary file in the
// same directory, which is renamed over path only once complete, so a
// failure never leaves a partial file.
func Save(path string, img image.Image, opts ...SaveOption) error {
	cfg := saveConfig{pngLevel: png.DefaultCompression}
	for _, o := range opts {
		o(&cfg)
	}
	var enc func(io.Writer) error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		e := png.Encoder{CompressionLevel: cfg.pngLevel}
		enc = func(w io.Writer) error { return e.Encode(w, img) }
		if cfg.pngLevel == png.BestSpeed {
			enc = func(w io.Writer) error { return pngfast.Encode(w, img) }
			if cfg.opaque {
				enc = func(w io.Writer) error { return pngfast.EncodeOpaque(w, img) }
			}
		}
	case ".tif", ".tiff":
		enc = func(w io.Writer) error {
			return tiff.Encode(w, img, &tiff.Options{Compression: tiff.Deflate})
		}
	case ".pgm", ".ppm", ".pnm":
		enc = func(w io.Writer) error { return netpbm.Encode(w, img) }
		if cfg.opaque {
			enc = func(w io.Writer) error { return netpbm.EncodeOpaque(w, img) }
		}
	default:
		return fmt.Errorf("patches: save %s: unsupported extension %q (want .png, .tif, .tiff, .pgm, .ppm or .pnm)", path, ext)
	}
	if err := atomicfile.Write(path, enc); err != nil {
		return fmt.Errorf("patches: save: %w", err)
	}
	return nil
}
