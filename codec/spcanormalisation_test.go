package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/spcalab/spca/internal/checksum"
	"github.com/spcalab/spca/internal/hostile"
)

// TestReadModelInfiniteSPCAScale reads codec models whose embedded SPCA
// model has a scale of +Inf (plain versions 2 and 4): a *ModelError
// naming the scale. Before spca.Read refused it, such a model was read
// and coded a 40×33 texture as if every patch were the same (169 bytes
// instead of 471), with no error.
func TestReadModelInfiniteSPCAScale(t *testing.T) {
	craft := func(b []byte) ([]byte, error) {
		at, _, err := hostile.SPCALatticeAt(b)
		if err != nil {
			return nil, err
		}
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint64(b[at-24:], math.Float64bits(math.Inf(1))) // the scale
		return checksum.Refresh(b), nil
	}
	m := smallModel(t)
	for _, compact := range []bool{true, false} {
		plain := withSPCA(t, m, compact, craft)
		got, err := ReadModel(bytes.NewReader(plain))
		if err == nil {
			err = got.LoadSections()
		}
		var me *ModelError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "scale") {
			t.Errorf("compact %v: %v, want a *ModelError naming the SPCA model's scale", compact, err)
		}
	}
}
