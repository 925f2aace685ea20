package codec

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"testing"
)

// squeezed returns img in grey with its levels mapped to [lo, lo+span):
// darker or brighter than the training textures.
func squeezed(img image.Image, lo, span int) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			v := int(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y)
			g.SetGray(x, y, color.Gray{Y: uint8(lo + v*span/256)})
		}
	}
	return g
}

func sse(a, b *image.Gray) float64 {
	var s float64
	for i, v := range a.Pix {
		d := float64(v) - float64(b.Pix[i])
		s += d * d
	}
	return s
}

// TestShiftVersion checks format version 8 against version 7: Encode
// writes it for a gamma-0 model, twice the same bytes; on the test
// textures (inside the training data) it decodes with no more error than
// version 7 in at most 16 more bytes, and on the same textures made darker or
// brighter than any training patch, whose patches pile up in the first
// dimension's end cells or become outliers, the shifts save a third of
// the error or of the bytes at no more error (measured: dark 56 % of the
// error and 63 % of the bytes, bright 4 % and 68 %).
func TestShiftVersion(t *testing.T) {
	m := stepModel(t) // 3×3, gamma 0
	_, test := images()
	cases := []struct {
		name string
		img  *image.Gray
		gain float64 // the least share of version 7's error or bytes version 8 saves
	}{
		{"texture", squeezed(test[0], 0, 256), 0},
		{"dark", squeezed(test[0], 0, 24), 0.3},
		{"bright", squeezed(test[1], 232, 24), 0.3},
	}
	for _, c := range cases {
		var b7, b8, again bytes.Buffer
		if err := encodeVersion(&b7, c.img, m, nil, formatVersionCounts); err != nil {
			t.Fatal(err)
		}
		if err := encodeVersion(&b8, c.img, m, nil, formatVersionShifts); err != nil {
			t.Fatal(err)
		}
		if v := b8.Bytes()[len(Magic)]; v != formatVersionShifts {
			t.Fatalf("%s: a gamma-0 model wrote version %d", c.name, v)
		}
		if err := encodeVersion(&again, c.img, m, nil, formatVersionShifts); err != nil || !bytes.Equal(again.Bytes(), b8.Bytes()) {
			t.Fatalf("%s: two encodes differ (%v)", c.name, err)
		}
		d7, err := Decode(bytes.NewReader(b7.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		d8, err := Decode(bytes.NewReader(b8.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		e7, e8 := sse(c.img, d7.(*image.Gray)), sse(c.img, d8.(*image.Gray))
		t.Logf("%s: version 7 %d bytes, squared error %.0f; version 8 %d bytes, %.0f", c.name, b7.Len(), e7, b8.Len(), e8)
		switch {
		case e8 > e7:
			t.Errorf("%s: version 8 squared error %.0f, version 7 %.0f", c.name, e8, e7)
		case c.gain == 0 && b8.Len() > b7.Len()+16: // the shift stream's header
			t.Errorf("%s: version 8 takes %d bytes, version 7 %d", c.name, b8.Len(), b7.Len())
		case c.gain > 0 && e8 > (1-c.gain)*e7 && float64(b8.Len()) > (1-c.gain)*float64(b7.Len()):
			t.Errorf("%s: version 8 saves less than %.0f %% of the bytes or the error of version 7", c.name, 100*c.gain)
		}
		// Every truncation is refused with a FormatError.
		for n := len(Magic) + 1; n < b8.Len(); n += 1 + b8.Len()/61 {
			_, err := Decode(bytes.NewReader(b8.Bytes()[:n]), m)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%s: truncated to %d bytes: %v, want a *FormatError", c.name, n, err)
			}
		}
	}
	// A version-8 file for a model with gamma > 0 is refused.
	var b bytes.Buffer
	if err := encodeVersion(&b, test[0], smallStepModel(t), nil, formatVersionShifts); err == nil {
		t.Error("version 8 written for a gamma-1/3 model")
	}
}
