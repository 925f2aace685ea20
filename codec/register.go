package codec

import (
	"bytes"
	"fmt"
	"image"
	"io"
	"sync"
)

// registered holds the models of RegisterModel by ID.
var registered sync.Map // ModelID -> *Model

// RegisterModel lets image.Decode decode the .spc files coded with m:
// the format "spc" is registered with the image package, and its decoder
// looks up the model a file names (Header.Model) among the registered
// ones. Without it image.Decode returns ErrNeedModel, as it cannot know
// the model. A model stays registered for the life of the process, like
// an image format; registering a model with the ID of one already
// registered (the same model file) replaces it. m must not be nil, and
// must not change (SetBins, SetStep) once registered.
func RegisterModel(m *Model) {
	if m == nil {
		panic("codec: RegisterModel of a nil model")
	}
	registered.Store(m.ID(), m)
}

// decodeRegistered is image.Decode's decoder of .spc files: Decode with
// the registered model the file names.
func decodeRegistered(r io.Reader) (image.Image, error) {
	var head bytes.Buffer
	h, err := DecodeHeader(io.TeeReader(r, &head))
	if err != nil {
		return nil, err
	}
	m, ok := registered.Load(h.Model)
	if !ok {
		return nil, fmt.Errorf("%w: model %s is not registered (codec.RegisterModel)", ErrNeedModel, h.Model.Short())
	}
	return Decode(io.MultiReader(&head, r), m.(*Model))
}
