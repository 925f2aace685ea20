//go:build !amd64

package codec

// search4 is search4Go off amd64.
func search4(p *refine4Run) bool { return search4Go(p) }
