package codec

import (
	"bytes"
	"testing"
)

// TestModelBytes checks that training twice on the same images with the
// same seed writes the same (compressed) model file, and that the file
// reads back to the same ID.
func TestModelBytes(t *testing.T) {
	var files [2][]byte
	for i := range files {
		m := smallColorModel(t, true)
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		files[i] = b.Bytes()
		back, err := ReadModel(bytes.NewReader(files[i]))
		if err != nil || back.ID() != m.ID() {
			t.Fatalf("read back: %v", err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two trainings with the same seed wrote different model files")
	}
}
