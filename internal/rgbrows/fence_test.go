package rgbrows

import (
	"bytes"
	"testing"

	"github.com/spcalab/spca/internal/fence"
)

// TestKernelsStayInSlices runs ToRGB and ToRGBA with their source and
// destination each ending where memory the process may not touch begins
// (on Linux): a kernel that read or wrote a byte past a slice faults. The
// byte-loop tests cannot see a read past the source (the bytes after a Go
// slice are readable): ToRGBA's source bound without its 4 spare bytes
// passed them, and so did either bound 4 bytes too generous when the
// other slice limited the groups.
func TestKernelsStayInSlices(t *testing.T) {
	if !hasSSSE3 {
		t.Skip("no SSSE3: nothing converted")
	}
	var srcFence, dstFence fence.Fence
	// Every pair of lengths up to 10 groups and a few bytes: either slice
	// may be the one that bounds the groups done.
	for sn := range 130 {
		for dn := range 170 {
			src := srcFence.At(t, sn)
			for i := range src {
				src[i] = byte(5*i + 1)
			}
			dst := dstFence.At(t, dn)
			if n := ToRGBA(dst, src); 4*n > dn || 3*n > sn {
				t.Fatalf("ToRGBA of %d bytes into %d: did %d pixels", sn, dn, n)
			} else {
				for x := range n {
					if !bytes.Equal(dst[4*x:4*x+3], src[3*x:3*x+3]) || dst[4*x+3] != 0xff {
						t.Fatalf("ToRGBA of %d bytes into %d: pixel %d is %v", sn, dn, x, dst[4*x:4*x+4])
					}
				}
			}
			if n := ToRGB(dst, src); 3*n > dn || 4*n > sn {
				t.Fatalf("ToRGB of %d bytes into %d: did %d pixels", sn, dn, n)
			} else {
				for x := range n {
					if !bytes.Equal(dst[3*x:3*x+3], src[4*x:4*x+3]) {
						t.Fatalf("ToRGB of %d bytes into %d: pixel %d is %v", sn, dn, x, dst[3*x:3*x+3])
					}
				}
			}
		}
	}
}
