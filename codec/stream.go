package codec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/fse"
)

// The indices of a channel are coded dimension by dimension in raster
// order of the blocks. The first (DC-like) dimension is coded as the
// difference from its left neighbour (the upper one in the first column),
// as JPEG codes DC. Every other dimension is coded as its signed distance
// from the dimension's most frequent index, in one of three context
// classes chosen by how far its left and upper neighbours are from it
// (flat, moderate, busy): context-adaptive entropy coding with a separate
// FSE table per class. Symbols are bytes; values from 255 up are escaped
// into a side stream of 16-bit values.

const (
	methodRaw byte = iota
	methodFSE
	methodRLE
	contexts = 3
	escape   = 255
)

// symbolStreams holds the byte streams of one channel.
type symbolStreams struct {
	sub [][]byte // per (dimension, context): dim 0 has one, others `contexts`
	esc []uint16
}

func zigzag(v int) int {
	if v >= 0 {
		return 2 * v
	}
	return -2*v - 1
}

func unzigzag(s int) int {
	if s&1 == 0 {
		return s / 2
	}
	return -(s + 1) / 2
}

func streamIndex(j, ctx int) int {
	if j == 0 {
		return 0
	}
	return 1 + (j-1)*contexts + ctx
}

func numStreams(dims int) int { return 1 + (dims-1)*contexts }

func contextOf(idx []int32, i, j, dims, cols, centre int) int {
	a := 0
	col := i % cols
	if col > 0 {
		a += abs(int(idx[(i-1)*dims+j]) - centre)
	}
	if i >= cols {
		a += abs(int(idx[(i-cols)*dims+j]) - centre)
	}
	switch {
	case a == 0:
		return 0
	case a <= 2:
		return 1
	}
	return 2
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func predictDC(idx []int32, i, dims, cols, centre int) int {
	if i%cols > 0 {
		return int(idx[(i-1)*dims])
	}
	if i >= cols {
		return int(idx[(i-cols)*dims])
	}
	return centre
}

// toSymbols splits the indices (blocks×dims) into context streams.
func toSymbols(idx []int32, dims, cols int, centre []int) *symbolStreams {
	n := len(idx) / dims
	s := &symbolStreams{sub: make([][]byte, numStreams(dims))}
	put := func(k, v int) {
		if v >= escape {
			s.sub[k] = append(s.sub[k], escape)
			s.esc = append(s.esc, uint16(v-escape))
			return
		}
		s.sub[k] = append(s.sub[k], byte(v))
	}
	for j := 0; j < dims; j++ {
		for i := 0; i < n; i++ {
			q := int(idx[i*dims+j])
			if j == 0 {
				put(0, zigzag(q-predictDC(idx, i, dims, cols, centre[0])))
				continue
			}
			ctx := contextOf(idx, i, j, dims, cols, centre[j])
			put(streamIndex(j, ctx), zigzag(q-centre[j]))
		}
	}
	return s
}

// fromSymbols rebuilds the indices, checking every value against bins.
// It mirrors toSymbols with the context logic inlined: this loop is the
// largest cost of decoding.
func fromSymbols(s *symbolStreams, idx []int32, dims, cols int, centre, bins []int) error {
	n := len(idx) / dims
	pos := make([]int, len(s.sub))
	esc := 0
	for j := 0; j < dims; j++ {
		cj, bj := centre[j], bins[j]
		for i := 0; i < n; i++ {
			var k, pred int
			col := i % cols
			if j == 0 {
				switch {
				case col > 0:
					pred = int(idx[(i-1)*dims])
				case i >= cols:
					pred = int(idx[(i-cols)*dims])
				default:
					pred = cj
				}
			} else {
				a := 0
				if col > 0 {
					a += abs(int(idx[(i-1)*dims+j]) - cj)
				}
				if i >= cols {
					a += abs(int(idx[(i-cols)*dims+j]) - cj)
				}
				ctx := 2
				if a == 0 {
					ctx = 0
				} else if a <= 2 {
					ctx = 1
				}
				k = 1 + (j-1)*contexts + ctx
				pred = cj
			}
			sub := s.sub[k]
			if pos[k] >= len(sub) {
				return errors.New("symbol stream too short")
			}
			v := int(sub[pos[k]])
			pos[k]++
			if v == escape {
				if esc >= len(s.esc) {
					return errors.New("escape stream too short")
				}
				v += int(s.esc[esc])
				esc++
			}
			q := pred + unzigzag(v)
			if q < 0 || q >= bj {
				return fmt.Errorf("index %d out of the %d bins of dimension %d", q, bj, j+1)
			}
			idx[i*dims+j] = int32(q)
		}
	}
	for k := range pos {
		if pos[k] != len(s.sub[k]) {
			return errors.New("symbol stream too long")
		}
	}
	if esc != len(s.esc) {
		return errors.New("escape stream too long")
	}
	return nil
}

// packStream entropy-codes one byte stream: method, symbol count, payload.
func packStream(dst, in []byte, sc *fse.Scratch) []byte {
	method, payload := methodRaw, in
	out, err := fse.Compress(in, sc)
	switch {
	case err == nil && len(out) < len(in):
		method, payload = methodFSE, out
	case errors.Is(err, fse.ErrUseRLE):
		method, payload = methodRLE, in[:1]
	}
	dst = append(dst, method)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(in)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

// unpackStream reads one stream from b, expecting at most limit symbols.
func unpackStream(b []byte, limit int, sc *fse.Scratch) (out, rest []byte, err error) {
	if len(b) < 9 {
		return nil, nil, errors.New("truncated stream header")
	}
	method := b[0]
	count := int(binary.LittleEndian.Uint32(b[1:]))
	plen := int(binary.LittleEndian.Uint32(b[5:]))
	b = b[9:]
	if count > limit {
		return nil, nil, fmt.Errorf("stream of %d symbols where at most %d fit the image", count, limit)
	}
	if plen > len(b) {
		return nil, nil, errors.New("truncated stream")
	}
	payload, rest := b[:plen], b[plen:]
	switch method {
	case methodRaw:
		if plen != count {
			return nil, nil, errors.New("raw stream length mismatch")
		}
		return payload, rest, nil
	case methodRLE:
		if plen != 1 {
			return nil, nil, errors.New("bad run-length stream")
		}
		out := make([]byte, count)
		for i := range out {
			out[i] = payload[0]
		}
		return out, rest, nil
	case methodFSE:
		sc.DecompressLimit = count
		dec, err := fse.Decompress(payload, sc)
		if err != nil {
			return nil, nil, fmt.Errorf("entropy-coded stream: %v", err)
		}
		if len(dec) != count {
			return nil, nil, errors.New("entropy-coded stream length mismatch")
		}
		return append([]byte(nil), dec...), rest, nil
	}
	return nil, nil, fmt.Errorf("unknown stream method %d", method)
}
