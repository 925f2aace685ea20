// Package pngfast writes and reads the common PNG files faster than
// image/png, with the same pixels.
//
// Encode writes grey and opaque RGB images as PNG about eight
// times faster than image/png at png.BestSpeed, for about the same bytes:
// every row takes the Sub filter (no per-row filter search) and the zlib
// stream is only Huffman-coded (no string matching, which finds little in
// a filtered photograph), by github.com/klauspost/compress, and the
// compressor is kept across calls. A decoded 768×512 grey photograph
// (kodim13) takes ~1.5 ms instead of ~18 ms to write, for about 3 % more
// bytes than image/png at BestSpeed; the decoded kodim13-24 grey take 0.3 %
// fewer bytes than with compress/flate's Huffman-only coder. Every PNG
// decoder reads the same pixels.
//
// Decode reads 8-bit grey, RGB and RGBA PNG files, non-interlaced, in one
// pass: the chunks through IEND with 64 KB reads (image/png reads 4 KB at
// a time, and a caller that first wants the header and the ICC profile
// reads the file two or three times), the IDAT data inflated by
// klauspost/compress from memory, the rows unfiltered into the image.
// It returns image/png's types and pixels (FuzzDecode checks it), is at
// least as strict, and leaves every other PNG file to image/png
// (ErrUnsupported). The kodim13-24 grey PNGs load in 3.0 instead of 4.1-4.5
// ms of CPU through patches.Load, the colour ones in 11.8 instead of 15.6.
package pngfast
