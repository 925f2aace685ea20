//go:build !unix

package fifo

import "errors"

// Make returns errors.ErrUnsupported: named pipes are a Unix feature.
func Make(path string) error { return errors.ErrUnsupported }
