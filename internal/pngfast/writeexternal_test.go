package pngfast

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// pixelBytes is what a PNG reader gives for the images Encode writes
// itself: the rows' bytes, RGB without alpha, 16-bit grey big-endian.
func pixelBytes(m image.Image) []byte {
	r := m.Bounds()
	var out []byte
	for y := r.Min.Y; y < r.Max.Y; y++ {
		switch g := m.(type) {
		case *image.Gray:
			out = append(out, g.Pix[g.PixOffset(r.Min.X, y):g.PixOffset(r.Max.X, y)]...)
		case *image.Gray16:
			out = append(out, g.Pix[g.PixOffset(r.Min.X, y):g.PixOffset(r.Max.X, y)]...)
		case *image.RGBA:
			row := g.Pix[g.PixOffset(r.Min.X, y):g.PixOffset(r.Max.X, y)]
			for i := 0; i < len(row); i += 4 {
				out = append(out, row[i:i+3]...)
			}
		}
	}
	return out
}

// subFiltered is the zlib stream's content Encode writes for m: each row
// the filter type 1 (Sub) and its bytes minus the bytes of the pixel
// before.
func subFiltered(m image.Image) []byte {
	raw := pixelBytes(m)
	bpp := 3
	switch m.(type) {
	case *image.Gray:
		bpp = 1
	case *image.Gray16:
		bpp = 2
	}
	n := m.Bounds().Dx() * bpp
	var out []byte
	for y := 0; y < m.Bounds().Dy(); y++ {
		row := raw[y*n : (y+1)*n]
		out = append(out, 1)
		for i := range row {
			b := row[i]
			if i >= bpp {
				b -= row[i-bpp]
			}
			out = append(out, b)
		}
	}
	return out
}

// idatData joins the IDAT chunks' data of a PNG file.
func idatData(file []byte) []byte {
	var z []byte
	for p := file[8:]; len(p) >= 12; {
		n := int(binary.BigEndian.Uint32(p))
		if string(p[4:8]) == "IDAT" {
			z = append(z, p[8:8+n]...)
		}
		p = p[12+n:]
	}
	return z
}

// TestEncodeExternalReaders (SPCA_LONG=1) writes grey, 16-bit grey and
// RGB files of widths around the kernels' steps, of one pixel, of rows
// longer than a 64 KB band and of a 65536-pixel row, and asks readers
// that share no code with image/png or this package, where installed:
// pngcheck (chunks, CRCs, zlib stream), ffmpeg (the pixels) and Python's
// zlib (the stream inflates to exactly the filtered rows, with nothing
// after the checksum).
func TestEncodeExternalReaders(t *testing.T) {
	if os.Getenv("SPCA_LONG") == "" {
		t.Skip("SPCA_LONG=1 runs the external PNG readers")
	}
	tools := map[string]bool{}
	for _, tool := range []string{"pngcheck", "ffmpeg", "python3"} {
		_, err := exec.LookPath(tool)
		tools[tool] = err == nil
		if err != nil {
			t.Logf("%s not installed: not asked", tool)
		}
	}
	rng := rand.New(rand.NewPCG(21, 15))
	ims := map[string]image.Image{}
	for _, sz := range [][2]int{{1, 1}, {7, 3}, {8, 2}, {9, 5}, {17, 17}, {33, 1}, {1001, 7}, {3000, 9}, {21846, 2}, {65536, 2}} {
		w, h := sz[0], sz[1]
		for name, m := range widthImages(rng, w, h) {
			ims[fmt.Sprintf("%s %dx%d", name, w, h)] = m
		}
	}
	tex := testimages.Texture(517, 131, 4)
	photo := image.NewRGBA(tex.Rect)
	for i, v := range tex.Pix {
		photo.Pix[4*i], photo.Pix[4*i+1], photo.Pix[4*i+2], photo.Pix[4*i+3] = v, v/2+byte(i%7), 255-v, 255
	}
	ims["grey texture"], ims["rgb texture"] = tex, photo
	dir := t.TempDir()
	// Each tool is started once for all files (a start of python3 through
	// pyenv's shim takes seconds).
	var names, files []string
	for name, m := range ims {
		var b bytes.Buffer
		if err := Encode(&b, m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		file := filepath.Join(dir, fmt.Sprintf("%d.png", len(files)))
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file+".z", idatData(b.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
		names, files = append(names, name), append(files, file)
	}
	if tools["pngcheck"] {
		for i, file := range files {
			if out, err := exec.Command("pngcheck", "-q", file).CombinedOutput(); err != nil {
				t.Errorf("%s: pngcheck: %v: %s", names[i], err, out)
			}
		}
	}
	// check compares what a tool wrote beside each file (suffix) with want.
	check := func(tool, suffix string, want func(image.Image) []byte) {
		for i, file := range files {
			got, err := os.ReadFile(file + suffix)
			if err != nil {
				t.Errorf("%s: %s wrote nothing: %v", names[i], tool, err)
			} else if w := want(ims[names[i]]); !bytes.Equal(got, w) {
				t.Errorf("%s: %s reads %d bytes, not the %d expected (or other values)", names[i], tool, len(got), len(w))
			}
		}
	}
	if tools["ffmpeg"] {
		args := []string{"-v", "error", "-nostdin"}
		for _, file := range files {
			args = append(args, "-i", file)
		}
		for i, file := range files {
			format := "rgb24"
			switch ims[names[i]].(type) {
			case *image.Gray:
				format = "gray"
			case *image.Gray16:
				format = "gray16be"
			}
			args = append(args, "-map", fmt.Sprint(i), "-f", "rawvideo", "-pix_fmt", format, file+".ffmpeg")
		}
		if out, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
			t.Errorf("ffmpeg: %v: %s", err, out)
		}
		check("ffmpeg", ".ffmpeg", pixelBytes)
	}
	if tools["python3"] {
		const script = `import sys, zlib
bad = 0
for f in sys.argv[1:]:
    d = zlib.decompressobj()
    out = d.decompress(open(f + ".z", "rb").read())
    if not d.eof or d.unused_data:
        print(f + ": stream not ended or data after it", file=sys.stderr)
        bad = 1
        continue
    open(f + ".py", "wb").write(out)
sys.exit(bad)`
		if out, err := exec.Command("python3", append([]string{"-c", script}, files...)...).CombinedOutput(); err != nil {
			t.Errorf("Python's zlib: %v: %s", err, out)
		}
		check("Python's zlib", ".py", subFiltered)
	}
}
