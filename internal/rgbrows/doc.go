// Package rgbrows converts rows of 8-bit pixels between RGB (3 bytes a
// pixel, as PPM and PNG store them) and RGBA (4 bytes, alpha 0xff, as
// image.RGBA holds them) by SSSE3 byte shuffles, 4 pixels an instruction,
// where the CPU has them: a byte at a time, the PNG reader's RGB to RGBA
// copy was 4 % of the instructions of a colour batch encode from PNG, and
// the PPM reader's and writer's word-wise loops 19 and 7 instructions a
// pixel. The functions convert a prefix of the row and return its length;
// the caller's own loop does the rest (and everything on other CPUs).
package rgbrows
