package netpbm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"testing"
)

// TestMaxvalScaling checks that samples of a greymap or pixmap whose
// maximum value is not 255 or 65535 are scaled to the nearest 8- or
// 16-bit value (v·255/maxval or v·65535/maxval rounded, as libnetpbm's
// pnm_scalesample does): every sample of small maxima and a spread of
// samples of larger ones, grey and colour. A scaling that rounded down
// passed every other test (sample 1 of maxval 100 read as 2, not 3;
// sample 2 of maxval 7 as 72, not 73).
func TestMaxvalScaling(t *testing.T) {
	for _, maxval := range []int{1, 3, 7, 100, 254, 256, 1000, 4095, 65534} {
		var vals []int
		for v := 0; v <= maxval; v += max(1, maxval/300) {
			vals = append(vals, v)
		}
		vals = append(vals, maxval)
		top := 255
		if maxval > 255 {
			top = 65535
		}
		for _, channels := range []int{1, 3} {
			magic := "P5"
			if channels == 3 {
				magic = "P6"
			}
			w := (len(vals) + channels - 1) / channels
			file := fmt.Appendf(nil, "%s %d 1 %d\n", magic, w, maxval)
			for i := range w * channels {
				v := vals[min(i, len(vals)-1)]
				if top == 255 {
					file = append(file, byte(v))
				} else {
					file = binary.BigEndian.AppendUint16(file, uint16(v))
				}
			}
			img, err := Decode(bytes.NewReader(file))
			if err != nil {
				t.Fatalf("maxval %d, %d channels: %v", maxval, channels, err)
			}
			for i := range w * channels {
				v := vals[min(i, len(vals)-1)]
				want := int(math.Round(float64(v) * float64(top) / float64(maxval)))
				if got := sample(img, i/channels, i%channels); got != want {
					t.Errorf("maxval %d, %d channels: sample %d read as %d, want %d", maxval, channels, v, got, want)
					break
				}
			}
		}
	}
}

// sample returns channel c of pixel (x, 0) of a decoded image, in its
// own depth (8 or 16 bits).
func sample(img image.Image, x, c int) int {
	switch m := img.(type) {
	case *image.Gray:
		return int(m.Pix[m.PixOffset(x, 0)])
	case *image.Gray16:
		return int(binary.BigEndian.Uint16(m.Pix[m.PixOffset(x, 0):]))
	case *image.RGBA:
		return int(m.Pix[m.PixOffset(x, 0)+c])
	case *image.RGBA64:
		return int(binary.BigEndian.Uint16(m.Pix[m.PixOffset(x, 0)+2*c:]))
	}
	panic(fmt.Sprintf("decoded as %T", img))
}
