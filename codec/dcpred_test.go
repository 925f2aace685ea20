package codec

import (
	"bytes"
	"image"
	"testing"
)

// TestEdgeVersion checks format version 6 against version 5 on the same
// indices: the same pixels in fewer bytes, and version 6 refused for a
// model whose first indices cannot be predicted from pixels (gamma > 0).
func TestEdgeVersion(t *testing.T) {
	m := stepModel(t) // 3×3, gamma 0
	_, test := images()
	var size5, size6 int
	for _, img := range test {
		var b5, b6 bytes.Buffer
		if err := encodeVersion(&b5, img, m, nil, formatVersionAdaptive); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b6, img, m, nil); err != nil {
			t.Fatal(err)
		}
		if v := b6.Bytes()[len(Magic)]; v != formatVersionEdges {
			t.Fatalf("a gamma-0 model wrote version %d", v)
		}
		a, err := Decode(bytes.NewReader(b5.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Decode(bytes.NewReader(b6.Bytes()), m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.(*image.Gray).Pix, b.(*image.Gray).Pix) {
			t.Error("versions 5 and 6 decode to other pixels")
		}
		size5 += b5.Len()
		size6 += b6.Len()
	}
	t.Logf("version 5: %d bytes, version 6: %d", size5, size6)
	if size6 >= size5 {
		t.Errorf("version 6 takes %d bytes, version 5 %d", size6, size5)
	}
	var b bytes.Buffer
	if err := encodeVersion(&b, test[0], smallStepModel(t), nil, formatVersionEdges); err == nil {
		t.Error("version 6 written for a gamma-1/3 model")
	}
}
