// Package patches cuts images into patch vectors and puts them back, for
// transform coding of images with a transform learned on patches (such as
// SPCA, which this package knows nothing about).
//
// # Images and planes
//
// Load decodes PNG, JPEG, GIF, TIFF, BMP and WebP files at 8 or 16 bits
// per sample, turning JPEG images upright according to their EXIF
// orientation, and rejecting files that are not images (ErrNotImage) or
// claim more than DefaultMaxPixels (100 megapixels; 2^23 - 1 on 32-bit
// platforms) in their header
// (ErrTooLarge; MaxPixels raises the budget) before
// decoding them. Save writes PNG or TIFF atomically, keeping 16-bit images
// at 16 bits.
//
// Computation happens on a Plane, one channel of float64 samples in
// row-major order. Samples are on the 0..255 scale for every bit depth (a
// 16-bit value v becomes v/257), so that RMSE and PSNR read in the usual
// 8-bit units whatever the source. Luminance gives the grey plane of an
// image (the BT.601 luma Y' = 0.299 R' + 0.587 G' + 0.114 B' of
// gamma-encoded colour, as JPEG uses); YCbCr gives the three planes of
// JPEG's full-range Y'CbCr, which decorrelates colour channels and which
// FromYCbCr inverts exactly in floating point. FromPlane and FromYCbCr
// round and clamp planes back into 8- or 16-bit images. Halve and Double
// resample a chroma plane to half resolution and back (JPEG's 4:2:0: 2×2
// block means, then bilinear interpolation at the full-resolution
// sample positions); FromYCbCr420 converts from half-resolution chroma
// directly, as FromYCbCr of the doubled planes.
//
// # Patches
//
// Extract cuts a plane into non-overlapping n×n blocks, the rows of a
// gonum matrix in raster order, each block's n² samples in raster order:
//
//	x, grid := patches.Extract(plane, 2) // x is (blocks × 4)
//	// ... transform, quantise and invert the rows of x ...
//	rec := patches.Assemble(x, grid)
//
// Planes whose size is not a multiple of n are padded on the right and at
// the bottom by replicating the last column and row; Assemble crops the
// padding, and Extract followed by Assemble is exact.
//
// Training data come from Sample, which draws a seeded, uniform sample of
// n×n patches at any position (not only on the block grid) across a set
// of planes, each plane weighted by its number of positions.
//
// With large blocks the dimension n² is too high for a nonlinear transform
// of all coordinates. PCA is an optional linear front end: FitPCA fits an
// orthonormal basis ordered by decreasing variance with deterministic
// signs, Forward and Inverse apply it exactly, and Split and Join separate
// the leading k responses (for the nonlinear transform) from the rest
// (for scalar quantisation).
//
// # Quality
//
// MSE, RMSE, PSNR (peak 255) and SSIM (Wang et al. 2004, 11×11 Gaussian
// window of standard deviation 1.5, K1 = 0.01, K2 = 0.03, L = 255)
// compare a reconstructed plane with the original.
//
// Functions panic on programming errors (a block size below 1, planes of
// different sizes, matrices of the wrong shape) and return errors for bad
// files and data.
package patches
