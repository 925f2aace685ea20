package hostile

import (
	"bytes"
	"testing"
)

// PNGWithCRCs repairs damaged CRCs (IHDR's, IEND's), keeps valid ones
// (data itself, not a copy), and leaves a trailing partial chunk alone.
func TestPNGWithCRCs(t *testing.T) {
	good := ZeroPNG(3, 2)
	bad := bytes.Clone(good)
	bad[8+8+13] ^= 1
	bad[len(bad)-1] ^= 0x80
	if !bytes.Equal(PNGWithCRCs(bad), good) {
		t.Error("damaged CRCs not recomputed")
	}
	if got := PNGWithCRCs(good); &got[0] != &good[0] {
		t.Error("a file with valid CRCs was copied")
	}
	tail := append(bytes.Clone(bad[:len(bad)-12]), 0, 0, 0, 9, 'I')
	if got := PNGWithCRCs(tail); !bytes.Equal(got[len(got)-5:], tail[len(tail)-5:]) || !bytes.Equal(got[:len(got)-5], good[:len(good)-12]) {
		t.Error("a partial last chunk changed, or the whole ones were not repaired")
	}
}
