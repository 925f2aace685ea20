package pngfast

import (
	"image"
	"testing"
)

// filteredReal returns the Sub-filtered RGB rows (filter byte first) of
// the PNGs of SPCA_BENCH_PNG, one slice an image; it skips without them.
func filteredReal(b *testing.B) [][]byte {
	var out [][]byte
	for _, m := range benchImages(b) {
		g, ok := m.(*image.RGBA)
		if !ok {
			continue
		}
		w, hgt := g.Rect.Dx(), g.Rect.Dy()
		rows := make([]byte, 0, hgt*(1+3*w))
		for y := range hgt {
			rows = append(rows, 1)
			rows = rows[:len(rows)+3*w]
			subRGB(rows[len(rows)-3*w:], g.Pix[y*g.Stride:y*g.Stride+4*w])
		}
		out = append(out, rows)
	}
	if len(out) == 0 {
		b.Skip("no RGB PNG files in SPCA_BENCH_PNG")
	}
	return out
}

// BenchmarkWriterStages times stages of the writer on the filtered rows
// of real images (SPCA_BENCH_PNG), reporting ns per filtered byte:
// count, the byte counts alone; flush, a block's whole coding (counts,
// Adler-32, Huffman tables, literals) in 64 KB blocks as Encode gives
// them. A kernel's change shows here at a few per cent, where
// BenchmarkEncodeReal (PNG decoding of the inputs aside, the filters
// and the file's chunks too) and the CLI batch do not resolve it.
func BenchmarkWriterStages(b *testing.B) {
	ims := filteredReal(b)
	total := 0
	for _, p := range ims {
		total += len(p)
	}
	const block = 64 << 10
	b.Run("count", func(b *testing.B) {
		h := newHuffWriter()
		for i := 0; i < b.N; i++ {
			for _, p := range ims {
				h.reset()
				h.count(p)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*total), "ns/B")
	})
	b.Run("flush", func(b *testing.B) {
		h := newHuffWriter()
		for i := 0; i < b.N; i++ {
			for _, p := range ims {
				h.reset()
				for q := p; len(q) > 0; {
					k := min(len(q), block)
					h.tally(q[:k])
					h.flush(q[:k])
					h.take()
					q = q[k:]
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*total), "ns/B")
	})
}
