//go:build !amd64

package rgbrows

var hasSSSE3 = false

// ToRGB converts no pixels on this architecture: the caller's loop does.
func ToRGB(dst, src []byte) int { return 0 }

// ToRGBA converts no pixels on this architecture: the caller's loop does.
func ToRGBA(dst, src []byte) int { return 0 }
