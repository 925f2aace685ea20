package patches

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/spcalab/spca/colorspace"
)

// iccPrimaries returns the rXYZ, gXYZ and bXYZ tags' values of an RGB
// space with the chromaticities p and white D65, as an ICC profile stores
// them: the primaries' columns adapted to the D50 of the profile
// connection space by the Bradford transform.
func iccPrimaries(p [3][2]float64) [3][3]float64 {
	var cols colorspace.Mat3
	for j, xy := range p {
		c := colorspace.XYZFromChromaticity(xy[0], xy[1], 1)
		cols[j], cols[3+j], cols[6+j] = c[0], c[1], c[2]
	}
	inv, err := cols.Inverse()
	if err != nil {
		panic(err)
	}
	m := colorspace.Bradford(colorspace.WhiteD65, colorspace.XYZ{0.9642, 1, 0.8249}).
		Mul(cols.Mul(colorspace.Diag(inv.Apply(colorspace.WhiteD65))))
	return [3][3]float64{{m[0], m[3], m[6]}, {m[1], m[4], m[7]}, {m[2], m[5], m[8]}}
}

// TestICCNearSRGB checks the primaries' tolerance (0.005) on spaces close
// to sRGB: Apple RGB (gamma 1.8; primaries 0.045 from sRGB's at most) and
// EBU 3213 (PAL; its green 0.01 from sRGB's in x, 0.019 in XYZ) are
// refused, sRGB from its chromaticities is accepted. TestICCProfiles's
// Display P3 and Adobe RGB, 0.08 and 0.18 away, let a tolerance of 0.05
// pass: a file in Apple RGB was then read as sRGB.
func TestICCNearSRGB(t *testing.T) {
	for _, c := range []struct {
		name string
		xy   [3][2]float64
		ok   bool
	}{
		{"sRGB", [3][2]float64{{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}}, true},
		{"Apple RGB", [3][2]float64{{0.625, 0.34}, {0.28, 0.595}, {0.155, 0.07}}, false},
		{"EBU 3213", [3][2]float64{{0.64, 0.33}, {0.29, 0.60}, {0.15, 0.06}}, false},
	} {
		prim := iccPrimaries(c.xy)
		profile := iccProfile("RGB ", "c2", &prim) // a name that says nothing
		for format, data := range map[string][]byte{"png": withPNGProfile(t, profile), "jpeg": withJPEGProfile(t, profile)} {
			_, err := Decode(bytes.NewReader(data))
			if c.ok && err != nil || !c.ok && !errors.Is(err, ErrNotSRGB) {
				t.Errorf("%s %s: %v", c.name, format, err)
			}
		}
	}
}

// mlucTag returns an ICC v4 multiLocalizedUnicodeType tag holding s (en-US).
func mlucTag(s string) []byte {
	t := []byte("mluc\x00\x00\x00\x00")
	t = binary.BigEndian.AppendUint32(t, 1)  // records
	t = binary.BigEndian.AppendUint32(t, 12) // record size
	t = append(t, "enUS"...)
	u := utf16.Encode([]rune(s))
	t = binary.BigEndian.AppendUint32(t, uint32(2*len(u)))
	t = binary.BigEndian.AppendUint32(t, 28) // offset of the string
	for _, c := range u {
		t = binary.BigEndian.AppendUint16(t, c)
	}
	return t
}

// TestICCv4Description checks the description of ICC v4 profiles (mluc),
// the kind Display P3 files carry: the error names the profile, and a
// profile named sRGB without primaries is sRGB. Every profile of the
// other tests is v2 (desc); with the mluc record's length and offset
// swapped they passed.
func TestICCv4Description(t *testing.T) {
	p3 := iccPrimaries([3][2]float64{{0.680, 0.320}, {0.265, 0.690}, {0.150, 0.060}})
	for format, data := range map[string][]byte{
		"png":  withPNGProfile(t, iccProfileDesc("RGB ", mlucTag("Display P3"), &p3)),
		"jpeg": withJPEGProfile(t, iccProfileDesc("RGB ", mlucTag("Display P3"), &p3)),
	} {
		if _, err := Decode(bytes.NewReader(data)); !errors.Is(err, ErrNotSRGB) || !strings.Contains(err.Error(), `"Display P3"`) {
			t.Errorf("%s with a v4 Display P3 profile: %v, want ErrNotSRGB naming it", format, err)
		}
	}
	named := withPNGProfile(t, iccProfileDesc("RGB ", mlucTag("sRGB IEC61966-2.1"), nil))
	if _, err := Decode(bytes.NewReader(named)); err != nil {
		t.Errorf("v4 profile named sRGB: %v", err)
	}
}

// TestICCMalformed checks that an iCCP chunk with a name and no
// compression byte is left to the decoder (image/png skips it): the bound
// check on it, one byte short, panicked.
func TestICCMalformed(t *testing.T) {
	data := samplePNG(3, 2, 8, 2, 0, [][]byte{pngChunk("iCCP", []byte("icc\x00"))}, 7)
	img, err := Decode(bytes.NewReader(data))
	if err != nil || img.Bounds() != image.Rect(0, 0, 3, 2) {
		t.Errorf("PNG with a truncated iCCP chunk: %v, %v", img, err)
	}
}

// TestJPEGFillBytes checks that fill bytes (0xFF, any number) before a
// JPEG's APP2 segments do not hide its profile. jpegProfile read markers
// in pairs, so that an odd number of fill bytes ended its search: a
// Display P3 JPEG, which image/jpeg decodes, was read as sRGB (a real
// bug, fixed with this test).
func TestJPEGFillBytes(t *testing.T) {
	p3 := iccPrimaries([3][2]float64{{0.680, 0.320}, {0.265, 0.690}, {0.150, 0.060}})
	j := withJPEGProfile(t, iccProfile("RGB ", "Display P3", &p3))
	for fill := range 4 {
		data := append(append(append([]byte{}, j[:2]...), bytes.Repeat([]byte{0xFF}, fill)...), j[2:]...)
		if _, err := Decode(bytes.NewReader(data)); !errors.Is(err, ErrNotSRGB) {
			t.Errorf("Display P3 JPEG with %d fill bytes: %v, want ErrNotSRGB", fill, err)
		}
		if _, err := Decode(bytes.NewReader(data), AssumeSRGB(true)); err != nil {
			t.Errorf("Display P3 JPEG with %d fill bytes, AssumeSRGB: %v", fill, err)
		}
	}
}
