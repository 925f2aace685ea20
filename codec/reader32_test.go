package codec

import (
	"encoding/binary"
	"errors"
	"testing"
)

// The model reader's 32-bit fields are counts, indices and versions: a
// value of 2^31 or more became a negative int on 32-bit platforms (where
// "centre index < bins" then held for -1, and a section length of -1
// passed "not beyond the file"), and one such field times another wrapped
// (rows × dims × 4 of the training sample). They are refused as out of
// range on every platform, and the sizes are computed in int64.
func TestModelReader32(t *testing.T) {
	for _, v := range []uint32{1 << 31, 1<<32 - 1} {
		r := &modelReader{b: binary.LittleEndian.AppendUint32(nil, v)}
		got := r.u32()
		var me *ModelError
		if !errors.As(r.err, &me) || got != 0 {
			t.Errorf("u32 of %#x: %d, %v; want 0 and a *ModelError", v, got, r.err)
		}
	}
	r := &modelReader{b: binary.LittleEndian.AppendUint32(nil, 1<<31-1)}
	if got := r.u32(); got != 1<<31-1 || r.err != nil {
		t.Errorf("u32 of 2^31-1: %d, %v", got, r.err)
	}
	// 2^24 rows of 225 values: 4·2^24·225 bytes of float32, 2^34 and
	// more, where the reader holds 1 KB.
	for _, kind := range []byte{0, 1} {
		for _, rows := range []int{1 << 24, 1<<31 - 1} {
			r := &modelReader{b: make([]byte, 1024), budget: 1 << 40}
			r.b[0] = kind
			err := r.sample(&Channel{}, rows, 225, true)
			var me *ModelError
			if !errors.As(err, &me) {
				t.Errorf("training sample of kind %d, %d rows of 225 values in 1 KB: %v, want a *ModelError", kind, rows, err)
			}
		}
	}
}
