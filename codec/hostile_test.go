package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
)

// zstdZeros is a zstd frame declaring size bytes and holding n zero bytes
// as RLE blocks of 128 KiB: 4 bytes per block, so 1 GiB in 32 KiB.
func zstdZeros(size, n uint64) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 0xFD2FB528)
	b = append(b, 0xC0, 13<<3) // 8-byte content size; window 8 MiB
	b = le.AppendUint64(b, size)
	const block = 128 << 10
	for left := n; left > 0; {
		k := min(left, block)
		left -= k
		h := uint32(k)<<3 | 1<<1 // RLE block
		if left == 0 {
			h |= 1
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// readHostileModel reads data as a codec model, checking that it fails
// with a *ModelError containing want and allocates within the bound.
func readHostileModel(t *testing.T, name string, data []byte, want string) {
	t.Helper()
	var err error
	hostile.Check(t, name, len(data), func() { _, err = ReadModel(bytes.NewReader(data)) })
	var me *ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s (%d bytes): got %v, want a *ModelError saying %q", name, len(data), err, want)
	}
}

// Issue 23: compressed models that inflate far beyond their size are
// refused before (declared size) or while (undeclared bytes) inflating.
func TestReadModelZstdBomb(t *testing.T) {
	head := binary.LittleEndian.AppendUint32([]byte(ModelMagic), modelVersionZstd)
	bomb := append(bytes.Clone(head), zstdZeros(1<<30, 1<<30)...)
	readHostileModel(t, "1 GiB of zeros declared", bomb, "declares 1073741824 bytes")
	liar := append(bytes.Clone(head), zstdZeros(4096, 1<<30)...)
	readHostileModel(t, "4 KiB declared, 1 GiB held", liar, "compressed data")
	undeclared := bytes.Clone(liar)
	undeclared[len(head)+4] = 0 // no content size, window 8 MiB
	readHostileModel(t, "no size declared", undeclared, "does not declare its size")
}

// Issue 23: a codec model whose embedded SPCA model declares a lattice of
// 2^26 nodes and holds none (393 bytes compressed in the report) is
// refused within the allocation bound.
func TestReadModelHostileLattice(t *testing.T) {
	plain := plainFile(t, smallModel(t))
	at := bytes.Index(plain, []byte("SPCAmodl"))
	if at < 8 {
		t.Fatal("no embedded SPCA model")
	}
	n := int(binary.LittleEndian.Uint64(plain[at-8:]))
	lattice, err := hostile.SPCALattice(plain[at : at+n])
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	b = append(b, plain[:at-8]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(lattice)))
	b = append(b, lattice...)
	b = append(b, plain[at+n:len(plain)-4]...)
	file := compressed(checksum.Append(b))
	readHostileModel(t, "lattice of 2^26 nodes", file, "truncated")
}
