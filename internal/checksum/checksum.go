// Package checksum is the trailer shared by the project's binary formats
// (SPCA models, codec models, coded images, adaptation models): a CRC-32C
// (Castagnoli) of everything before it, stored little-endian in the last
// four bytes.
package checksum

import (
	"encoding/binary"
	"hash/crc32"
)

// Table is the CRC-32C table, for streaming writers and readers
// (crc32.New(Table)).
var Table = crc32.MakeTable(crc32.Castagnoli)

// Sum returns the CRC-32C of b.
func Sum(b []byte) uint32 { return crc32.Checksum(b, Table) }

// Append returns b followed by its checksum trailer.
func Append(b []byte) []byte { return binary.LittleEndian.AppendUint32(b, Sum(b)) }

// Valid reports whether data ends with the checksum trailer of the bytes
// before it (false if data is shorter than a trailer).
func Valid(data []byte) bool {
	if len(data) < 4 {
		return false
	}
	n := len(data) - 4
	return Sum(data[:n]) == binary.LittleEndian.Uint32(data[n:])
}

// Refresh returns a copy of data with its last four bytes replaced by the
// trailer of the rest; data shorter than a trailer is returned as is. Fuzz
// targets use it so that mutations reach the fields behind the checksum
// instead of all failing it.
func Refresh(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	return Append(append([]byte(nil), data[:len(data)-4]...))
}
