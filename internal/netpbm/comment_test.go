package netpbm

import (
	"bytes"
	"errors"
	"image"
	"strings"
	"testing"
)

// TestCommentEndsNumber: a comment right after a number ends it, as
// libnetpbm reads headers (a comment may stand anywhere before the
// whitespace that ends the header): after the maximum value its end of
// line is that whitespace. Such files were refused ("unexpected byte
// '#'"). A comment that runs to the end of the file is a truncated header.
func TestCommentEndsNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []byte
	}{
		{"P5 2 1 255#c\n\x10\x20", []byte{0x10, 0x20}},
		{"P5 2#width\n1#height\r255\n\x10\x20", []byte{0x10, 0x20}},
		{"P5\n# c\n2 1\n255\n\x10\x20", []byte{0x10, 0x20}},
		{"P5 2 1 15#max\n\x01\x0f", []byte{17, 255}},
	} {
		img, err := Decode(strings.NewReader(c.in))
		if err != nil {
			t.Errorf("Decode(%q): %v", c.in, err)
			continue
		}
		if g, ok := img.(*image.Gray); !ok || g.Rect != image.Rect(0, 0, 2, 1) || !bytes.Equal(g.Pix, c.want) {
			t.Errorf("Decode(%q) = %v", c.in, img)
		}
	}
	for in, want := range map[string]string{
		"P5 2 1 255#c":      "no whitespace",
		"P5 2 1#":           "truncated header",
		"P5 2#c\nx 1 255\n": "unexpected byte",
	} {
		_, err := Decode(strings.NewReader(in))
		var fe FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want a FormatError containing %q", in, err, want)
		}
	}
}
