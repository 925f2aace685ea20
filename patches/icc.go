package patches

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// ErrNotSRGB is returned, wrapped, by Load and Decode for a PNG or JPEG
// image that carries an ICC profile other than sRGB (Adobe RGB, Display
// P3, ...): its values would be read as sRGB and come out with the wrong
// colours. AssumeSRGB(true) reads them as sRGB anyway.
var ErrNotSRGB = errors.New("patches: ICC profile is not sRGB")

// AssumeSRGB sets whether images are read as sRGB whatever ICC profile
// they carry (false by default: a PNG or JPEG with a profile other than
// sRGB is refused with ErrNotSRGB).
func AssumeSRGB(on bool) LoadOption {
	return func(c *loadConfig) { c.assumeSRGB = on }
}

// maxProfile bounds the ICC profile read from an image (profiles are a
// few kilobytes; large ones carry lookup tables).
const maxProfile = 4 << 20

// embeddedProfile returns the ICC profile of a PNG (iCCP chunk) or JPEG
// (APP2 ICC_PROFILE segments) read from r, or nil if there is none. An
// sRGB chunk of a PNG counts as no profile.
func embeddedProfile(r io.Reader, format string) ([]byte, error) {
	switch format {
	case "png":
		return pngProfile(r)
	case "jpeg":
		return jpegProfile(r)
	}
	return nil, nil
}

func pngProfile(r io.Reader) ([]byte, error) {
	var sig [8]byte
	if _, err := io.ReadFull(r, sig[:]); err != nil {
		return nil, err
	}
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return nil, err
		}
		n := binary.BigEndian.Uint32(hdr[:4])
		if !chunkType(hdr[4:]) {
			// Not a chunk: left to the decoder's error (zeros after a
			// header on a stream were skipped 12 bytes at a time).
			return nil, nil
		}
		switch typ := string(hdr[4:]); typ {
		case "IDAT", "IEND", "sRGB":
			return nil, nil
		case "iCCP":
			if n > maxProfile {
				return nil, fmt.Errorf("iCCP chunk of %d bytes", n)
			}
			data := make([]byte, n)
			if _, err := io.ReadFull(r, data); err != nil {
				return nil, err
			}
			// Profile name, NUL, compression method (0: zlib), profile.
			i := bytes.IndexByte(data, 0)
			if i < 0 || i+2 > len(data) {
				return nil, errors.New("malformed iCCP chunk")
			}
			z, err := zlib.NewReader(bytes.NewReader(data[i+2:]))
			if err != nil {
				return nil, fmt.Errorf("iCCP chunk: %w", err)
			}
			defer z.Close()
			return io.ReadAll(io.LimitReader(z, maxProfile))
		}
		if _, err := io.CopyN(io.Discard, r, int64(n)+4); err != nil {
			return nil, err
		}
	}
}

// chunkType reports whether t is a PNG chunk type: four ASCII letters.
func chunkType(t []byte) bool {
	for _, c := range t {
		if c|0x20 < 'a' || c|0x20 > 'z' {
			return false
		}
	}
	return true
}

func jpegProfile(r io.Reader) ([]byte, error) {
	var soi [2]byte
	if _, err := io.ReadFull(r, soi[:]); err != nil {
		return nil, err
	}
	var profile []byte
	for {
		var m [4]byte
		if _, err := io.ReadFull(r, m[:2]); err != nil {
			return profile, err
		}
		if m[0] != 0xFF {
			return profile, nil
		}
		// Fill bytes (0xFF) may precede a marker, any number of them: the
		// marker's code is the first other byte. Read in pairs, an odd
		// number of them put the code in m[0] and the profile of such a
		// file went unseen.
		for m[1] == 0xFF {
			if _, err := io.ReadFull(r, m[1:2]); err != nil {
				return profile, err
			}
		}
		switch {
		case m[1] == 0xDA || m[1] == 0xD9: // start of scan, end of image
			return profile, nil
		case m[1] >= 0xD0 && m[1] <= 0xD8 || m[1] == 0x01: // no length
			continue
		}
		if _, err := io.ReadFull(r, m[2:]); err != nil {
			return profile, err
		}
		n := int(binary.BigEndian.Uint16(m[2:])) - 2
		if n < 0 {
			return profile, nil
		}
		const tag = "ICC_PROFILE\x00"
		if m[1] != 0xE2 || n < len(tag)+2 {
			if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
				return profile, err
			}
			continue
		}
		seg := make([]byte, n)
		if _, err := io.ReadFull(r, seg); err != nil {
			return profile, err
		}
		if string(seg[:len(tag)]) == tag && len(profile)+n <= maxProfile {
			// Chunks are in order in practice; the sequence number is
			// seg[len(tag)].
			profile = append(profile, seg[len(tag)+2:]...)
		}
	}
}

// sRGB's primaries in an ICC profile (rXYZ, gXYZ, bXYZ: D50-adapted, IEC
// 61966-2-1 as in the ICC's sRGB profiles).
var srgbPrimaries = map[string][3]float64{
	"rXYZ": {0.4361, 0.2225, 0.0139},
	"gXYZ": {0.3851, 0.7169, 0.0971},
	"bXYZ": {0.1431, 0.0606, 0.7141},
}

// profileIsSRGB reports whether the ICC profile p is sRGB, by its
// primaries (within 0.005) or, without them, by its description; grey
// profiles count as sRGB (a grey image has no primaries to get wrong). It
// returns the description for the error message.
func profileIsSRGB(p []byte) (bool, string) {
	if len(p) < 132 {
		return false, "a truncated profile"
	}
	space := string(p[16:20])
	tags := make(map[string][]byte)
	// The tag count as stored, never an int: on a 32-bit platform 2^31
	// and more were negative, and no tag was read where a 64-bit build
	// reads every tag the profile holds.
	count := uint64(binary.BigEndian.Uint32(p[128:132]))
	for i := 0; uint64(i) < count && 132+12*i+12 <= len(p); i++ {
		e := p[132+12*i:]
		off, size := binary.BigEndian.Uint32(e[4:8]), binary.BigEndian.Uint32(e[8:12])
		if uint64(off)+uint64(size) <= uint64(len(p)) {
			tags[string(e[:4])] = p[off : off+size]
		}
	}
	desc := profileDescription(tags["desc"])
	if space == "GRAY" {
		return true, desc
	}
	matched := 0
	for name, want := range srgbPrimaries {
		t := tags[name]
		if len(t) < 20 || string(t[:4]) != "XYZ " {
			continue
		}
		for k := range 3 {
			v := float64(int32(binary.BigEndian.Uint32(t[8+4*k:]))) / 65536
			if d := v - want[k]; d > 0.005 || d < -0.005 {
				return false, desc
			}
		}
		matched++
	}
	if matched == 3 {
		return true, desc
	}
	return strings.Contains(strings.ToLower(desc), "srgb"), desc
}

// profileDescription decodes a desc (ICC v2) or mluc (v4) tag.
func profileDescription(t []byte) string {
	switch {
	case len(t) >= 12 && string(t[:4]) == "desc":
		// Sizes compared in 64 bits: int(n) of a hostile n is negative
		// on 32-bit platforms.
		n := uint64(binary.BigEndian.Uint32(t[8:12]))
		if 12+n <= uint64(len(t)) {
			return strings.TrimRight(string(t[12:12+n]), "\x00")
		}
	case len(t) >= 28 && string(t[:4]) == "mluc":
		n, off := uint64(binary.BigEndian.Uint32(t[20:24])), uint64(binary.BigEndian.Uint32(t[24:28]))
		if off+n <= uint64(len(t)) && n%2 == 0 {
			u := make([]uint16, n/2)
			for i := range u {
				u[i] = binary.BigEndian.Uint16(t[off+2*uint64(i):])
			}
			return strings.TrimRight(string(utf16.Decode(u)), "\x00")
		}
	}
	return "unnamed"
}
