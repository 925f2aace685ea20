package checksum

import (
	"bytes"
	"hash/crc32"
	"testing"
)

// The trailer is the published CRC-32C check value of "123456789"
// (0xE3069283), little-endian; Valid accepts it and rejects any change.
func TestTrailer(t *testing.T) {
	b := Append([]byte("123456789"))
	if want := []byte{0x83, 0x92, 0x06, 0xe3}; !bytes.Equal(b[9:], want) {
		t.Fatalf("trailer % x, want % x", b[9:], want)
	}
	if !Valid(b) {
		t.Error("Valid rejects a correct trailer")
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x10
		if Valid(c) {
			t.Errorf("byte %d flipped: still valid", i)
		}
		if !Valid(Refresh(c)) {
			t.Errorf("byte %d flipped: Refresh does not make it valid", i)
		}
	}
	if Valid([]byte{1, 2, 3}) || !bytes.Equal(Refresh([]byte{1, 2}), []byte{1, 2}) {
		t.Error("data shorter than a trailer")
	}
	h := crc32.New(Table)
	h.Write([]byte("123456789"))
	if h.Sum32() != Sum([]byte("123456789")) {
		t.Error("streaming and one-shot sums differ")
	}
}
