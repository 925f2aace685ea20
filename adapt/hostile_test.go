package adapt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
)

// Issue 23: an adaptation model whose embedded SPCA model declares a
// lattice of 2^26 nodes and holds none is refused within the allocation
// bound (it used to allocate gigabytes in adapt apply).
func TestReadHostileLattice(t *testing.T) {
	good := smallModelFile(t)
	at := bytes.Index(good, []byte("SPCAmodl"))
	n := int(binary.LittleEndian.Uint64(good[at-8:]))
	lattice, err := hostile.SPCALattice(good[at : at+n])
	if err != nil {
		t.Fatal(err)
	}
	var file []byte
	file = append(file, good[:at-8]...)
	file = binary.LittleEndian.AppendUint64(file, uint64(len(lattice)))
	file = append(file, lattice...)
	file = checksum.Append(append(file, good[at+n:len(good)-4]...))
	hostile.Check(t, "lattice of 2^26 nodes", len(file), func() { _, err = Read(bytes.NewReader(file)) })
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("got %v, want a *FormatError saying truncated", err)
	}
}

// Issue 24: an adaptation model whose two embedded SPCA models hold the
// most integer-coded lattice values and metric tables the format allows
// (valid models: one byte a value in the file, eight in memory) is read
// within the allocation bound, the two sharing it.
func TestReadHostileIntModel(t *testing.T) {
	file := withSPCA(t, smallModelFile(t), hostile.SPCAIntModel)
	var err error
	a := hostile.Allocated(func() { _, err = Read(bytes.NewReader(file)) })
	t.Logf("%d bytes, allocated %.1f MB, bound %.1f MB, %v", len(file), float64(a)/1e6, float64(hostile.Bound(len(file)))/1e6, err)
	hostile.Check(t, "integer lattices", len(file), func() { _, err = Read(bytes.NewReader(file)) })
	if err != nil {
		t.Error(err)
	}
}

// withSPCA returns the adaptation model file good with each embedded
// SPCA model replaced by craft's version of it.
func withSPCA(tb testing.TB, good []byte, craft func([]byte) ([]byte, error)) []byte {
	tb.Helper()
	var file []byte
	rest := good[:len(good)-4]
	for {
		at := bytes.Index(rest, []byte("SPCAmodl"))
		if at < 0 {
			break
		}
		n := int(binary.LittleEndian.Uint64(rest[at-8:]))
		sm, err := craft(rest[at : at+n])
		if err != nil {
			tb.Fatal(err)
		}
		file = append(file, rest[:at-8]...)
		file = binary.LittleEndian.AppendUint64(file, uint64(len(sm)))
		file = append(file, sm...)
		rest = rest[at+n:]
	}
	return checksum.Append(append(file, rest...))
}

// Finite colours near the end of the float64 range made the SPCA map
// panic (its blend weight was NaN: index out of range) and the linear maps
// return +Inf or NaN without an error. Colours beyond ±MaxLMS are refused;
// every method maps colours up to it to finite values.
func TestMapHugeColours(t *testing.T) {
	m := testModel(t)
	for _, method := range []Method{SPCA, PCAWhitening, GrayWorld, Bradford} {
		mp, err := m.Mapper(method)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []colorspace.LMS{{1.7e308, 1.7e308, 1.7e308}, {-1.7e308, 1.7e308, -1.7e308}, {2 * MaxLMS, 0, 0}} {
			dst := make([]colorspace.LMS, 1)
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%v %v: panic %v", method, c, r)
					}
				}()
				err = mp.MapLMS(dst, []colorspace.LMS{c})
			}()
			if err == nil || !strings.Contains(err.Error(), "out of range") {
				t.Errorf("%v %v: got %v, %v; want an out of range error", method, c, dst[0], err)
			}
		}
		dst := make([]colorspace.LMS, 2)
		if err := mp.MapLMS(dst, []colorspace.LMS{{MaxLMS, MaxLMS, MaxLMS}, {-MaxLMS, MaxLMS, 0}}); err != nil {
			t.Errorf("%v: MaxLMS: %v", method, err)
		}
		for _, c := range dst {
			if !finite3(c) {
				t.Errorf("%v: MaxLMS mapped to %v", method, c)
			}
		}
	}
}

// A ray table of 1024 directions and 4096 radii declares 3·1024²·4096 =
// 3·2^32 values: on 32-bit platforms the count wrapped to 0, the table
// was accepted empty and the first lookup indexed past it. The count is
// computed in int64 and refused as truncated, on every platform.
func TestReadRayTableWraps(t *testing.T) {
	m, err := Read(bytes.NewReader(smallModelFile(t)))
	if err != nil {
		t.Fatal(err)
	}
	m.Rays, m.HighlightGains = nil, [3]float64{} // version 4
	good := modelBytes(t, m)
	// The body ends with the ray table's count, 0 here, then the checksum.
	body := bytes.Clone(good[:len(good)-4])
	if binary.LittleEndian.Uint64(body[len(body)-8:]) != 0 {
		t.Fatal("the file does not end with an empty ray table")
	}
	for _, nr := range [][2]uint64{{1023, 4095}, {1024, 4096}, {1023, 1023}} {
		b := binary.LittleEndian.AppendUint64(bytes.Clone(body[:len(body)-8]), nr[0])
		b = binary.LittleEndian.AppendUint64(b, nr[1])
		b = append(b, make([]byte, 64)...)
		file := checksum.Append(b)
		var fe *FormatError
		var err error
		hostile.Check(t, "ray table", len(file), func() { _, err = Read(bytes.NewReader(file)) })
		if !errors.As(err, &fe) {
			t.Errorf("ray table of %d×%d in %d bytes: %v, want a *FormatError", nr[0], nr[1], len(file), err)
		}
	}
}
