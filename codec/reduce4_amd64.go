package codec

// reduce4AVX is reduce4 for the table cell at p with strides s0..s3 (in
// float32s, already times the 4 values of a node), fractions t and
// result u; the caller checks that the corners lie in the table.
//
//go:noescape
func reduce4AVX(p *float32, s0, s1, s2, s3 int, t *[4]float64, u *[4]float64)
