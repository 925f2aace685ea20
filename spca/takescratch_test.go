package spca_test

import (
	"bytes"
	"testing"

	"github.com/spcalab/spca/spca"
	"github.com/spcalab/spca/testimages"
)

// TestTakeScratch checks that the integer scratch TakeScratch returns is
// the caller's: a model read after it makes its own, and leaves the taken
// one as the caller wrote it (codec puts a process's first image in it).
func TestTakeScratch(t *testing.T) {
	file := snappedCompact(t, testimages.Spiral(300, 1).X)
	read := func() []byte {
		t.Helper()
		r, err := spca.Read(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		if _, err := r.WriteCompactTo(&w); err != nil {
			t.Fatal(err)
		}
		return w.Bytes()
	}
	want := read()
	var taken []int64
	for range 4 { // a sync.Pool may miss (other processors, -race)
		if taken = spca.TakeScratch(); len(taken) > 0 {
			break
		}
		read()
	}
	if len(taken) == 0 {
		t.Skip("the scratch was not kept (sync.Pool)")
	}
	taken = taken[:cap(taken)]
	for i := range taken {
		taken[i] = int64(i)*7 + 3
	}
	if got := read(); !bytes.Equal(got, want) {
		t.Fatal("the model read after TakeScratch differs")
	}
	for i, v := range taken {
		if v != int64(i)*7+3 {
			t.Fatalf("a model read wrote into the taken scratch (value %d: %d)", i, v)
		}
	}
}
