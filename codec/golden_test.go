package codec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"testing"

	"github.com/spcalab/spca/testimages"
)

// TestGolden pins the bytes of small models trained in code (fixed seeds),
// of the .spc files they write and of the pixels decoded from them to
// SHA-256 prefixes recorded on amd64. It fails when training, encoding or
// decoding drifts: a regression, or an architecture where the compiler
// fuses a multiply-add that amd64 rounds twice (arm64, ppc64le, s390x,
// riscv64, amd64 with GOAMD64=v3). A deliberate format change updates the
// model or .spc sums (the test logs the new ones); the pixel sums change
// only with the encoder's decisions. Run it on arm64 with SPCA_QEMU=1 (see
// TestGoldenQEMU).
func TestGolden(t *testing.T) {
	grey, colour := testimages.Texture(61, 45, 21), testimages.ColorTexture(61, 45, 21)
	for _, c := range []struct {
		name                     string
		model                    func(testing.TB) *Model
		img                      image.Image
		modelSum, spcSum, pixSum string
	}{
		{"fixed", func(t testing.TB) *Model { return smallModel(t) }, grey,
			"b6bf300eb6b31a93", "c142e2f8cdbf3cb6", "4f43452805f82095"},
		{"step", smallStepModel, grey,
			"8b7a4ca246bb0d1c", "9a5b3f4e294c36ad", "b339d75a19c6bc1c"},
		{"gamma0", func(t testing.TB) *Model {
			return smallModel(t, func(o *TrainOptions) { o.Patch, o.Step, o.Gamma = 3, 12, 0 })
		}, grey, "e02677bbcc6a2fc7", "0f623025df9c4923", "05d4b2b1035511e1"},
		{"colour", func(t testing.TB) *Model { return smallColorModel(t, true) }, colour,
			"aea36ba0b02f7e46", "5fa1f38c2e81b58e", "c85069e821d1d6c8"},
	} {
		m := c.model(t)
		var mb, sb bytes.Buffer
		if err := m.write(&mb, false); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&sb, c.img, m, nil); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(bytes.NewReader(sb.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		modelSum, spcSum, pixSum := sum8(mb.Bytes()), sum8(sb.Bytes()), sum8(pixelBytes(t, got))
		if modelSum != c.modelSum || spcSum != c.spcSum || pixSum != c.pixSum {
			t.Errorf("%s: model %s spc %s pixels %s, want %s %s %s",
				c.name, modelSum, spcSum, pixSum, c.modelSum, c.spcSum, c.pixSum)
		}
	}
}

// sum8 is the first 8 bytes of b's SHA-256, in hex.
func sum8(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// pixelBytes is the pixel buffer of a decoded image.
func pixelBytes(t *testing.T, img image.Image) []byte {
	switch p := img.(type) {
	case *image.Gray:
		return p.Pix
	case *image.Gray16:
		return p.Pix
	case *image.RGBA:
		return p.Pix
	case *image.NRGBA:
		return p.Pix
	case *image.RGBA64:
		return p.Pix
	case *image.NRGBA64:
		return p.Pix
	}
	t.Fatalf("decoded image of type %T", img)
	return nil
}
