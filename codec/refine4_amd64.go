package codec

// search4 is search4Go in assembly (refine4_amd64.s): the state in
// registers, the 8 moves of a round unrolled (TestSearch4).
//
//go:noescape
func search4(p *refine4Run) (miss bool)
