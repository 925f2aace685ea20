// Package pngfast writes and reads the common PNG files faster than
// image/png, with the same pixels.
//
// Encode writes grey and opaque RGB images as PNG about eight
// times faster than image/png at png.BestSpeed, for about the same bytes:
// every row takes the Sub filter (no per-row filter search) and the zlib
// stream is only Huffman-coded (no string matching, which finds little in
// a filtered photograph): one dynamic block per 64 KB of rows, one table
// of the 256 byte values built from the block's counts (of a quarter of
// the rows for grey images), coded three bytes at a time, the Adler-32
// summed while filtering (deflate.go). It
// takes ~20-30 % less CPU than klauspost/compress's HuffmanOnly level,
// which it replaced (BenchmarkEncode), for 0.3 % more bytes (no stored
// blocks, no table reuse across blocks, code lengths sent without runs).
// Every PNG decoder reads the same pixels. On amd64 with AVX2 and BMI2,
// kernels (write_amd64.s) filter RGB rows 8 pixels a step, sum the
// Adler-32 32 bytes a step (also when reading), count the bytes eight
// from one load and join the codes by BMI2's shifts: the same file for
// ~60 % fewer instructions of the colour writer.
//
// Decode reads 8-bit grey, RGB and RGBA PNG files, non-interlaced, in one
// pass: the chunks through IEND with 64 KB reads (image/png reads 4 KB at
// a time, and a caller that first wants the header and the ICC profile
// reads the file two or three times), the IDAT data inflated from memory
// into one buffer by the package's own inflater (inflate.go: 8-byte bit
// refills, two literals per table lookup; about half klauspost/compress's
// time on a 768×512 grey PNG written by image/png, which it replaced), the
// rows unfiltered into the image.
// It returns image/png's types and pixels (FuzzDecode checks it), is at
// least as strict, and leaves every other PNG file to image/png
// (ErrUnsupported). The kodim13-24 grey PNGs load in 3.0 instead of 4.1-4.5
// ms of CPU through patches.Load, the colour ones in 11.8 instead of 15.6.
package pngfast
