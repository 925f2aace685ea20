package extcodec

import (
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/testimages"
)

// TestSweep runs every installed codec on a generated texture: the rate
// and the PSNR rise with the quality setting. Codecs not installed are
// skipped with a note.
func TestSweep(t *testing.T) {
	have, missing := Available(All)
	for _, m := range missing {
		t.Logf("%s not installed: skipped", m)
	}
	if len(have) == 0 {
		t.Skip("no external codec installed")
	}
	imgs := []image.Image{testimages.Texture(64, 48, 3)}
	for _, c := range have {
		res, err := c.Sweep(imgs, []int{30, 90}, false)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !(res[1].BPP > res[0].BPP && res[1].PSNR > res[0].PSNR) {
			t.Errorf("%s: quality 30 %+v, 90 %+v: rate and PSNR should rise", c.Name, res[0], res[1])
		}
	}
}

// TestSweepColor: a colour sweep codes the image's colours and measures
// them as a colour model's files are measured (PSNR of R, G and B), a
// grey one the luminance alone. On stripes of one luma and two chromas,
// alternating pixel by pixel, cjpeg's 4:2:0 chroma keeps the luma and
// loses the colours: the colour sweep's PSNR is far below the grey one's.
// On a colour texture the colour files cost more bits than the grey ones,
// and cjpeg's are decoded by djpeg, whose chroma interpolation gives a
// higher PSNR than image/jpeg's repeated samples of the same files.
func TestSweepColor(t *testing.T) {
	have, _ := Available(All)
	var cjpeg *Codec
	for i := range have {
		if have[i].Name == All[0].Name {
			cjpeg = &have[i]
		}
	}
	if cjpeg == nil {
		t.Skip("cjpeg and djpeg not installed")
	}
	stripes := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			// BT.601 luma 135.6 and 135.9.
			c := color.RGBA{200, 100, 150, 255}
			if x%2 == 1 {
				c = color.RGBA{80, 160, 158, 255}
			}
			stripes.SetRGBA(x, y, c)
		}
	}
	qs := []int{90}
	grey, err := cjpeg.Sweep([]image.Image{stripes}, qs, false)
	if err != nil {
		t.Fatal(err)
	}
	col, err := cjpeg.Sweep([]image.Image{stripes}, qs, true)
	if err != nil {
		t.Fatal(err)
	}
	if !(grey[0].PSNR > 40 && col[0].PSNR < 25) {
		t.Errorf("stripes of one luma: grey sweep %.2f dB, colour %.2f dB; want above 40 and below 25", grey[0].PSNR, col[0].PSNR)
	}
	for _, c := range have {
		tex := testimages.ColorTexture(64, 48, 5)
		g, err := c.Sweep([]image.Image{tex}, qs, false)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := c.Sweep([]image.Image{tex}, qs, true)
		if err != nil {
			t.Fatal(err)
		}
		if !(cs[0].BPP > g[0].BPP) {
			t.Errorf("%s: colour texture at %.3f bpp in colour, %.3f in grey: the chroma should cost bits", c.Name, cs[0].BPP, g[0].BPP)
		}
		if c.Name != All[0].Name {
			continue
		}
		// The same file decoded by image/jpeg (cjpeg is deterministic).
		dir := t.TempDir()
		in, out := filepath.Join(dir, "t.ppm"), filepath.Join(dir, "t.jpg")
		if err := patches.Save(in, tex); err != nil {
			t.Fatal(err)
		}
		if err := run(c.enc, c.encArgs(qs[0], in, out)); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		byGo, err := jpeg.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		if goPSNR := codec.Quality(tex, byGo, true).PSNR; !(cs[0].PSNR > goPSNR) {
			t.Errorf("%s: colour texture %.3f dB, decoded by image/jpeg %.3f dB: want djpeg's interpolated chroma ahead", c.Name, cs[0].PSNR, goPSNR)
		}
	}
}

// TestCover: cjpeg's points around a model's qualities are the run of its
// sweep from the last point at or below the lowest (on either metric) to
// the first at or above the highest on both, and no wider; qualities out
// of reach keep the sweep's end and are named in the note.
func TestCover(t *testing.T) {
	have, _ := Available(All[:1])
	if len(have) == 0 {
		t.Skip("cjpeg and djpeg not installed")
	}
	c := have[0]
	imgs := []image.Image{testimages.ColorTexture(64, 48, 3)}
	full, err := c.Sweep(imgs, c.Qualities, true)
	if err != nil {
		t.Fatal(err)
	}
	mid := func(i int) codec.Result {
		return codec.Result{PSNR: (full[i].PSNR + full[i+1].PSNR) / 2, SSIM: (full[i].SSIM + full[i+1].SSIM) / 2}
	}
	// The lowest PSNR between points 6 and 7, SSIM between 4 and 5 (the
	// SSIM sets the start); the highest between 12 and 13, and 10 and 11
	// (the PSNR sets the end).
	low := codec.Result{PSNR: mid(6).PSNR, SSIM: mid(4).SSIM}
	high := codec.Result{PSNR: mid(12).PSNR, SSIM: mid(10).SSIM}
	covers := func(pts []codec.Result) bool {
		lo, hi := pts[0], pts[len(pts)-1]
		for _, p := range pts {
			lo.PSNR, lo.SSIM = min(lo.PSNR, p.PSNR), min(lo.SSIM, p.SSIM)
		}
		return lo.PSNR <= low.PSNR && lo.SSIM <= low.SSIM && hi.PSNR >= high.PSNR && hi.SSIM >= high.SSIM
	}
	if !covers(full) {
		t.Fatalf("sweep %+v does not cover %+v-%+v", full, low, high)
	}
	pts, note, err := c.Cover(imgs, true, low, high)
	if err != nil {
		t.Fatal(err)
	}
	start := slices.IndexFunc(full, func(r codec.Result) bool { return r.Method == pts[0].Method })
	if start < 0 || start+len(pts) > len(full) || !sameResults(pts, full[start:start+len(pts)]) {
		t.Fatalf("cover %+v is not a run of the sweep %+v", pts, full)
	}
	if !covers(pts) || covers(pts[1:]) || covers(pts[:len(pts)-1]) || note != "" {
		t.Errorf("cover %v (note %q) of %+v-%+v: want the shortest run of the sweep around them", pts, note, low, high)
	}
	// Out of reach: the whole sweep, named.
	pts, note, err = c.Cover(imgs, true, codec.Result{PSNR: 1, SSIM: -1}, codec.Result{PSNR: 99, SSIM: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !sameResults(pts, full) || !strings.Contains(note, "lowest q1 is at") || !strings.Contains(note, "lowest q1 is at SSIM") ||
		!strings.Contains(note, "highest q95 is at") || !strings.Contains(note, "highest q95 is at SSIM") {
		t.Errorf("cover of 1-99 dB: %d points of %d, note %q; want the whole sweep and each end named", len(pts), len(full), note)
	}
}

func sameResults(a, b []codec.Result) bool {
	return slices.EqualFunc(a, b, func(x, y codec.Result) bool {
		return x.Method == y.Method && x.BPP == y.BPP && x.PSNR == y.PSNR && x.SSIM == y.SSIM
	})
}

// TestMatched: at the rate of one of cjpeg's qualities, Matched returns
// that quality's point of Sweep (colour and grey); between two rates, the
// nearer one's.
func TestMatched(t *testing.T) {
	have, _ := Available(All[:1])
	if len(have) == 0 {
		t.Skip("cjpeg and djpeg not installed")
	}
	c := have[0]
	img := testimages.ColorTexture(80, 56, 4)
	for _, color := range []bool{true, false} {
		pts, err := c.Sweep([]image.Image{img}, []int{37, 80, 81}, color)
		if err != nil {
			t.Fatal(err)
		}
		for i, bpp := range []float64{pts[0].BPP, pts[1].BPP, 0.9*pts[1].BPP + 0.1*pts[2].BPP} {
			got, err := c.Matched([]image.Image{img}, bpp, color)
			if err != nil {
				t.Fatal(err)
			}
			want := pts[min(i, 1)]
			if got.Method != c.Name+" (matched bpp)" || got.BPP != want.BPP || got.PSNR != want.PSNR || got.SSIM != want.SSIM {
				t.Errorf("colour %v, %.4f bpp: %+v, want %+v", color, bpp, got, want)
			}
		}
	}
}
