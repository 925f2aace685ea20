package main

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/image/tiff"

	"github.com/spcalab/spca/cmd/internal/cliutil"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/internal/netpbm"
	"github.com/spcalab/spca/internal/pngfast"
	"github.com/spcalab/spca/patches"
)

// stdioName is how messages name - as an input or output.
func stdioName(path, what string) string {
	if path == stdio {
		return what
	}
	return path
}

// openInput opens the input of encode or decode: a file, or standard
// input for -.
func openInput(c *cli.Context, in string) (io.ReadCloser, error) {
	if in == stdio {
		return io.NopCloser(c.App.Reader), nil
	}
	f, err := os.Open(in)
	if err != nil {
		return nil, fail("%s", pathError(err))
	}
	return f, nil
}

// loadInputImage is loadImage, reading standard input for -.
func loadInputImage(c *cli.Context, in string, opts ...patches.LoadOption) (image.Image, error) {
	if in != stdio {
		return loadImage(in, opts...)
	}
	// A pipe is an *os.File that cannot seek back: patches.Decode reads
	// it whole, once its first bytes are those of an image.
	var head bytes.Buffer
	img, err := patches.Decode(io.TeeReader(c.App.Reader, &limitedBuffer{&head, len(codec.Magic)}),
		loadOptions(opts)...)
	if err != nil {
		// As a file's (loadImage).
		return nil, imageError("stdin", err, func() bool { return bytes.HasPrefix(head.Bytes(), []byte(codec.Magic)) })
	}
	return img, nil
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.b.Write(p[:min(len(p), max(0, l.n-l.b.Len()))])
	return len(p), nil
}

// writeOutput writes an output of encode or decode: atomically to a
// file, or to standard output for -, whole once write has succeeded, so
// that a failure leaves nothing half-written on either.
func writeOutput(c *cli.Context, out string, write func(w io.Writer) error) error {
	if out != stdio {
		return atomicfile.Write(out, write)
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	_, err := c.App.Writer.Write(b.Bytes())
	return err
}

// imageFormatOf maps the extensions of decoded outputs to their format,
// as --format names it.
var imageFormatOf = map[string]string{
	".png": "png", ".pgm": "pgm", ".ppm": "pgm", ".pnm": "pgm", ".tif": "tiff", ".tiff": "tiff",
}

// formatExt returns the extension of decode's outputs written into a
// directory or to standard output, from --format.
func formatExt(c *cli.Context) (string, error) {
	// pgm, ppm and pnm name the same writer (PGM for grey, PPM for
	// colour, as patches.Save): they differ only in the extension.
	switch f := strings.ToLower(c.String(flagFormat)); f {
	case "png", "pgm", "ppm", "pnm", "tif", "tiff":
		return "." + f, nil
	default:
		return "", fail("%s: --%s %q: unknown format (want png, pgm, ppm or tiff)", cliutil.CommandName(c), flagFormat, c.String(flagFormat))
	}
}

// saveOutputImage is patches.Save, writing the format of the extension
// ext to standard output for -.
// PNG is compressed at png.BestSpeed: on a decoded 768×512 grey photo
// (kodim13) that took writing from 26 to 18 ms CPU for 0.3 % more bytes
// (299,050 instead of 298,095), a third of what djpeg spends per image;
// grey and opaque RGB images then go through internal/pngfast: ~1.5 ms
// (~4 ms with compress/flate); 301,714 bytes from the default 8×8 model.
// opaque asserts that img is opaque (patches.Opaque): decode's colour
// images are, their alpha set by the conversion from YCbCr.
func saveOutputImage(c *cli.Context, out, ext string, img image.Image, opaque bool) error {
	if out != stdio {
		if opaque {
			return patches.Save(out, img, patches.PNGCompression(png.BestSpeed), patches.Opaque())
		}
		return patches.Save(out, img, patches.PNGCompression(png.BestSpeed))
	}
	return writeOutput(c, out, func(w io.Writer) error {
		switch imageFormatOf[ext] {
		case "pgm":
			if opaque {
				return netpbm.EncodeOpaque(w, img)
			}
			return netpbm.Encode(w, img)
		case "tiff":
			return tiff.Encode(w, img, &tiff.Options{Compression: tiff.Deflate})
		}
		if opaque {
			return pngfast.EncodeOpaque(w, img)
		}
		return pngfast.Encode(w, img)
	})
}
