package patches

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// iccProfile builds a minimal ICC v2 profile of the colour space space
// ("RGB " or "GRAY") with a desc tag and, if primaries is not nil, rXYZ,
// gXYZ and bXYZ tags.
func iccProfile(space, desc string, primaries *[3][3]float64) []byte {
	d := append([]byte("desc\x00\x00\x00\x00"), binary.BigEndian.AppendUint32(nil, uint32(len(desc)+1))...)
	d = append(append(d, desc...), 0)
	d = append(d, make([]byte, 4+4+2+1+67)...) // empty Unicode and ScriptCode parts
	return iccProfileDesc(space, d, primaries)
}

// iccProfileDesc is iccProfile with the desc tag's data (a v2 desc or a
// v4 mluc tag).
func iccProfileDesc(space string, desc []byte, primaries *[3][3]float64) []byte {
	type tag struct {
		sig  string
		data []byte
	}
	tags := []tag{{"desc", desc}}
	if primaries != nil {
		for i, name := range []string{"rXYZ", "gXYZ", "bXYZ"} {
			x := []byte("XYZ \x00\x00\x00\x00")
			for _, v := range primaries[i] {
				x = binary.BigEndian.AppendUint32(x, uint32(int32(v*65536)))
			}
			tags = append(tags, tag{name, x})
		}
	}
	p := make([]byte, 132+12*len(tags))
	copy(p[12:], "mntr")
	copy(p[16:], space)
	copy(p[20:], "XYZ ")
	copy(p[36:], "acsp")
	binary.BigEndian.PutUint32(p[128:], uint32(len(tags)))
	for i, t := range tags {
		for len(p)%4 != 0 {
			p = append(p, 0)
		}
		e := p[132+12*i:]
		copy(e, t.sig)
		binary.BigEndian.PutUint32(e[4:], uint32(len(p)))
		binary.BigEndian.PutUint32(e[8:], uint32(len(t.data)))
		p = append(p, t.data...)
	}
	binary.BigEndian.PutUint32(p[0:], uint32(len(p)))
	return p
}

// withTagCount returns profile p with its tag count set to n.
func withTagCount(p []byte, n uint32) []byte {
	p = bytes.Clone(p)
	binary.BigEndian.PutUint32(p[128:], n)
	return p
}

// withPNGProfile returns a small PNG with the profile in an iCCP chunk.
func withPNGProfile(t testing.TB, profile []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(profile)
	zw.Close()
	data := append([]byte("icc\x00\x00"), z.Bytes()...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "iCCP"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	ihdrEnd := 8 + 8 + 13 + 4 // signature, IHDR header, data, CRC
	return append(append(append([]byte{}, b[:ihdrEnd]...), chunk...), b[ihdrEnd:]...)
}

// withJPEGProfile returns a small JPEG with the profile in two APP2
// segments (split as large profiles are).
func withJPEGProfile(t testing.TB, profile []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	half := len(profile) / 2
	var segs []byte
	for i, part := range [][]byte{profile[:half], profile[half:]} {
		payload := append([]byte("ICC_PROFILE\x00"), byte(i+1), 2)
		payload = append(payload, part...)
		segs = append(segs, 0xFF, 0xE2)
		segs = binary.BigEndian.AppendUint16(segs, uint16(len(payload)+2))
		segs = append(segs, payload...)
	}
	return append(append(append([]byte{}, b[:2]...), segs...), b[2:]...)
}

func TestICCProfiles(t *testing.T) {
	srgb := [3][3]float64{{0.4361, 0.2225, 0.0139}, {0.3851, 0.7169, 0.0971}, {0.1431, 0.0606, 0.7141}}
	p3 := [3][3]float64{{0.5151, 0.2412, -0.0011}, {0.2919, 0.6922, 0.0419}, {0.1572, 0.0666, 0.7841}}
	adobe := [3][3]float64{{0.6097, 0.3111, 0.0195}, {0.2053, 0.6257, 0.0609}, {0.1492, 0.0632, 0.7446}}
	for _, tc := range []struct {
		name    string
		profile []byte
		ok      bool
	}{
		{"sRGB primaries", iccProfile("RGB ", "sRGB IEC61966-2.1", &srgb), true},
		{"sRGB primaries, other name", iccProfile("RGB ", "c2", &srgb), true},
		{"named sRGB, no primaries", iccProfile("RGB ", "sRGB built-in", nil), true},
		{"grey", iccProfile("GRAY", "Dot Gain 20%", nil), true},
		{"Display P3", iccProfile("RGB ", "Display P3", &p3), false},
		{"Adobe RGB", iccProfile("RGB ", "Adobe RGB (1998)", &adobe), false},
		{"Adobe RGB named sRGB", iccProfile("RGB ", "sRGB", &adobe), false},
		// A tag count beyond the tags (here 2^31, negative as a 32-bit
		// int): the tags the profile holds are read.
		{"sRGB primaries, count 2^31", withTagCount(iccProfile("RGB ", "c2", &srgb), 1<<31), true},
	} {
		for format, data := range map[string][]byte{"png": withPNGProfile(t, tc.profile), "jpeg": withJPEGProfile(t, tc.profile)} {
			_, err := Decode(bytes.NewReader(data))
			if tc.ok {
				if err != nil {
					t.Errorf("%s %s: %v", tc.name, format, err)
				}
				continue
			}
			if !errors.Is(err, ErrNotSRGB) {
				t.Errorf("%s %s: error %v, want ErrNotSRGB", tc.name, format, err)
				continue
			}
			if want := strings.TrimSuffix(tc.name, " named sRGB"); !strings.Contains(err.Error(), want[:5]) && !strings.Contains(err.Error(), `"sRGB"`) {
				t.Errorf("%s %s: error %q does not name the profile", tc.name, format, err)
			}
			if _, err := Decode(bytes.NewReader(data), AssumeSRGB(true)); err != nil {
				t.Errorf("%s %s with AssumeSRGB: %v", tc.name, format, err)
			}
		}
	}
}
