// Package codec is transform coding of images with Sequential Principal
// Curves Analysis, the experiment of the seed's section "Encoding spatial
// texture" made into a codec a user can trust.
//
// A Model is trained once on an image set and then shared by encoder and
// decoder, like a dictionary. Each channel (luma, or Y, Cb and Cr) is cut
// into n×n patches; a PCA rotates them; SPCA, fitted on the leading PCA
// coefficients with the metric exponent gamma, maps them to responses in
// which uniform quantisation with n_i bins per dimension (C_ii = n_i) is
// the quantiser; the remaining coefficients (n > 2) get Lloyd–Max scalar
// quantisers. The bins come from classical high-resolution bit
// allocation on marginal entropies, n_i ∝ 2^{h_i}, with an exact total
// sum(n_i) (the seed's "resolution"), or from a target bits per pixel.
// Reconstruction is at the cell centres mapped back through the inverse
// transform (a codebook, precomputed when it has at most 2^20 cells and no
// more cells than the image has patches; otherwise each distinct cell of
// the image is inverted once). A colour model may code the chroma at half
// resolution in both directions (TrainOptions.Subsample, 4:2:0 as in
// JPEG): the Cb and Cr planes are halved (patches.Halve) before coding and
// doubled (patches.Double) after decoding; their streams then hold the
// patches of the half-size planes. On Kodak (4×4, gamma 0, step 8, train
// kodim01–03, test kodim07–10) it codes at 1.91 bpp instead of 2.33, at
// 39.2 dB RGB PSNR instead of 40.0, where image/jpeg at 1.91 bpp gives
// 37.3 dB.
//
// DefaultTrainOptions (and nil options) are the seed's setting: 2×2
// patches, gamma 1/3, 66 bins. PhotoTrainOptions, the default of `spca
// codec train`, is the configuration measured ahead of linear PCA with the
// same quantisers and entropy coder (PCABaseline) at every rate of
// held-out photographs: 8×8 patches, gamma 0, step 30, 131,072 lattice
// nodes (ResolutionFor).
//
// # Use
//
//	m, err := codec.Train(images, &opt)     // opt from PhotoTrainOptions or DefaultTrainOptions; nil: the seed's
//	err = m.Save("photo.model")             // LoadModel reads it back (Close it when done), ReadModel from a reader
//	err = codec.Encode(w, img, m, nil)      // nil: default options, the model's own step
//	step, _, err := codec.StepForRate(img, m, 1.0, nil)
//	err = codec.Encode(w, img, m, &codec.Options{Step: step}) // at 1 bit per pixel, within 2 % (the CLI's --bpp)
//	step, _, err = codec.EncodeAtRate(w, img, m, 1.0, nil)   // the same file, the search and encode sharing the transform
//	dec, err := codec.Decode(r, m)          // the model the file was coded with (Header.Model, Model.ID)
//	pca, err := codec.PCABaseline(m)        // linear PCA with the same quantisers and coder
//
// Encode and Decode write to and read from the caller's writer and reader
// and close neither. LoadModel keeps the model file open for the sections
// it reads on first use, until Model.Close; models from Train and
// ReadModel hold no file. A model is safe for concurrent Encode and Decode
// calls; SetBins and SetStep change it.
//
// Errors: a damaged or foreign .spc file is a *FormatError (wrapping
// ErrWrongModel for a file coded with another model, ErrTooLarge beyond
// the pixel budget), a damaged model file a *ModelError; bad training
// data or options are plain errors, wrapping *spca.DataError or
// *spca.OptionError where the SPCA fit refused them. image.Decode of an
// .spc file returns ErrNeedModel unless its model was registered with
// RegisterModel.
//
// # Assigning patches to cells
//
// The cells of the SPCA responses are not the Voronoi cells of their
// reconstructions: a cell's reconstruction, the inverse of its centre, is
// not the reconstruction nearest to every patch the cell holds, since the
// grid of reconstructions is curved and its spacing changes with the
// density. By default (Options.Assign = AssignNearest) the encoder moves
// each patch from the cell of its responses to the cell whose
// reconstruction is nearest to it, by steepest descent over the cells one
// bin away in one dimension (or, where none is nearer, in two), through
// the codebook; the decoder, and so the format, are the same. The descent
// needs a start near the patch, not its exact cell: the encoder starts it
// from responses interpolated in a table, and from the fast path's cell
// only where that start was poor. AssignResponses is the seed's encoder,
// uniform quantisation of the responses. On Kodak 2×2 luma (train
// kodim01–06, test kodim07–12 and barbara) a fifth of the patches move,
// and at 30/66/138/246 bins gamma 1/3 decodes at RMSE
// 8.40/4.48/2.44/1.57 instead of 8.96/5.00/2.82/1.90, at 2–6 % fewer bits
// per pixel: below PCA with Lloyd–Max quantisers (7.77/4.69/2.63/1.68)
// from 66 bins on, where assigned by responses it never was. The fixed-
// resolution mode uses it when the leading dimensions have at most 2^20
// cells (the codebook). In the entropy-constrained mode, where the cells
// are as fine as the step and their indices' cost matters, the encoder
// moves a patch to a neighbouring cell only where the error saved
// outweighs the bits the move costs (D + λR, see refine.go): on the 8
// held-out grey crops with an 8×8 gamma-0 model this puts SPCA ahead of
// PCA with the same machinery at every comparable rate, by PSNR and SSIM
// (BD-rate -1.4 % and -3.8 %; PCA, linear, has no such moves).
//
// # Fixed resolution and entropy-constrained modes
//
// The seed's experiment fixes the resolution sum(n_i) (SetBins): the
// point density p^γ with γ = 1/3 and Lloyd–Max are the optimum when every
// index costs the same number of bits. The indices are entropy coded,
// though, and then the classical optimum is different: one uniform step
// for every coefficient, the same distortion step²/12 and the same slope
// of distortion against rate in each. SetStep (`spca codec train --step`,
// or `--uniform --bpp B`) is that mode: DeadZone quantisers (a centred
// zero cell 4/3 of a step wide, centroid reconstruction, exactly 0 in the
// zero cell of a PCA coefficient) on every
// coefficient — beyond the SPCA ones on the PCA coefficient, for the SPCA
// ones on the response, scaled so that one unit is one step of the
// unfolded coordinate and centred on the median response. Use it with
// γ = 0: with γ > 0 the cells narrow where the density is high, which
// fixed-length indices reward and an entropy coder does not. On Kodak
// (train kodim01–06, test kodim07–12 and barbara), 4×4 patches in this
// mode give 39.35 dB at 1.35 bpp where image/jpeg gives 37.7 dB at the same
// rate, and the seed's mode with 4×4 patches 35.0 dB at 1.50 bpp; PCA with
// the same quantisers is still about 0.1 dB ahead at equal rate.
//
// # Outlier patches
//
// A model represents what it was trained on: its dead-zone quantisers
// cover the training coefficients and a quarter of their range beyond,
// and SPCA's responses stop at the ends of its lattice. In the
// entropy-constrained mode a patch that the model would reconstruct more
// than a step away (a coefficient beyond its quantiser's reach, or SPCA
// leading coefficients whose cell's inverse misses them by more than a
// step per dimension, checked where a response is in an end cell or the
// transform needed its exact path) is an outlier: it is coded as PCA
// coefficients on the unbounded lattice k·step of the model's step, in a
// side stream, so its error is that of any other patch. A black and white
// checkerboard coded with a model trained on natural-like textures had an
// RMSE of 63 (PCA with the same quantisers 38); with outliers, about
// step/√12 like everything else. Content like the training data has
// almost none (0.12 % of the 4×4 patches of the Kodak test images).
//
// The fixed-resolution mode is the seed's quantiser and has no outliers:
// every patch decodes to the centre of a cell of its fixed bins, and the
// end cells, wide where training data are rare, pull extremes in. A 2×2
// model trained on kodim01–02 at 66 bins decodes a white 64×64 image at
// RMSE 25, a black one at 20, and a one-pixel checkerboard at 114; a 4×4
// entropy-constrained model (--uniform --bpp 1.5) trained on the same
// images decodes them at 1.6, 2.5 and 2.8. Use that mode for images
// unlike the training set.
//
// # File format (.spc), little-endian
//
//	magic      "SPCI"
//	version    u8: 1 (fixed-resolution models), 9 (8-bit grey images
//	           of entropy-constrained models with gamma 0 or without
//	           SPCA), 10 (8-bit colour images of those models; 8 with
//	           Options.NoLoopFilter), 8 (their 16-bit images), 5 (the
//	           other entropy-constrained models); 2 is version 3 without
//	           the rest flags, 4 is version 3 with a step, 5 codes the
//	           indices arithmetically, 6 is 5 with the coder of
//	           dcpred.go, 7 to 10 are described at their constants in
//	           format.go (counts, end shifts, the loop filter, the loop
//	           filter of the luma of colour images)
//	model      [32]byte  SHA-256 of the codec model file (checked at decode)
//	width      u32, height u32 (at most 2^28 pixels)
//	channels   u8 (1 luma, 3 YCbCr; the model tells whether the chroma
//	           is at half resolution), depth u8 (8 or 16), patch u8 (n, 1..15)
//	bins       per channel: u8 count (= n²), then u16 per coefficient
//	step       in versions 4 to 10: float64, the quantiser step the
//	           file is coded at (versions 5 to 10: 0 for the model's own)
//	deblock    in versions 5 to 10: u8, the strength of the deblocking filter
//	           the decoder runs across the patch edges (0: none)
//	loop       in versions 9 and 10: u8 kind (0 none, 1 the 7×7 diamond),
//	           then 12 taps, int8 in 1/128 (all 0 with none): the loop
//	           filter run after the deblocking filter, on the grey image
//	           (9) or on the luma before the conversion to RGB (10)
//	streams    per channel: in version 3 first three rest-flag streams
//	           (a 0 or 1 per patch, by context class: see stream.go);
//	           then 1 + 3·(n²-1) symbol streams (dimension 1, then
//	           each further dimension's three contexts; in version 3 the
//	           dimensions beyond SPCA hold symbols for the patches whose
//	           rest flag is 1 only), then one escape
//	           stream of u16 values for symbols >= 255; in versions 2 and
//	           3 then the outlier streams: a flag per patch (0 or 1), and the n²
//	           zigzag-coded 32-bit cells k of each outlier patch in turn
//	           (4 bytes each), whose indices in the symbol streams are the
//	           dimensions' centres; each stream is method u8 (0 raw, 1 FSE,
//	           2 run), symbols u32, bytes u32, data
//	           (versions 5 and 6: per channel, u32 length and the bytes of
//	           one adaptive binary arithmetic-coded stream of the rest
//	           flags and indices, patch by patch, see arith.go, then the
//	           two outlier streams as above)
//	checksum   CRC-32C of everything before it
//
// Version-1 files of entropy-constrained models (written before outliers
// existed), version-2 files (before rest flags), version-3 and version-4
// files (FSE streams) and files of versions 5 to 9 still decode (colour
// files of version 8, written before version 10, to the same pixels). The arithmetic coder of version 5
// (contexts from the neighbours' indices of the same dimension and from
// how many of the patch's earlier dimensions are off their centre, a
// LOCO-I median prediction of the first dimension) codes the 8 held-out
// grey crops in about 12 % fewer bits than version 4 at equal quality
// (4×4 Kodak model, steps 0.5–4 of its own: BD-rate against cjpeg
// -optimize +16.4 → +2.3 % by PSNR, +41.0 → +24.0 % by SSIM). Version 5
// files also name a deblocking filter the decoder runs across the patch
// edges; the encoder chooses its strength per image, the one with the
// smallest squared error on its own reconstruction (see deblock.go).
//
// Decode checks the checksum, the model hash, every size against the image
// (a dimension's streams must hold exactly one symbol per patch, at most
// one for those the rest flags cover, checked before any is decoded, so a
// file cannot make the decoder allocate more than the image's own
// indices) and
// every index against its bins, so a corrupt, truncated, hostile or
// foreign file is a *FormatError in bounded time and memory. As run-length
// streams let a file of a few hundred bytes declare any size the format
// allows (2^28 pixels), Decode refuses images beyond a pixel budget,
// DefaultMaxPixels (100 megapixels; 2^23 - 1 on 32-bit platforms, whose
// address space a decode of 10^8 pixels overflows), wrapping ErrTooLarge;
// DecodeWith
// takes another. Model files are read in memory proportional to their
// bytes: a compressed model must declare its size, at most 8 MiB plus 16
// times its compressed bytes. Decoding is
// deterministic and bit-exact. The format is registered with the image
// package under the name "spc", so image.DecodeConfig reads the size and
// colour model of a file without its model; image.Decode decodes the
// files of the models registered with RegisterModel and reports that the
// model is needed (ErrNeedModel) for the others. DecodeHeader reads the whole header, with the ID of the
// model that decodes the file.
//
// # Exact and fast paths
//
// Encode uses a fast path by default: the geometric (unfolding) part of the
// SPCA transform is tabulated on a grid whose nodes follow the density of
// the training coefficients to the power 1/3, interpolated, refined by one
// Newton step of the exact geodesic projection, and passed through the
// exact metric tables.
// Options.Exact runs the exact transform for every patch; tests bound the
// fraction of indices on which the two differ (below 1 %).
//
// Evaluate compares a model with SPCA at the other gammas (refitted on the
// model's own training sample), with PCA plus a Lloyd–Max quantiser per
// coefficient at the same resolution, and with image/jpeg at matched bits
// per pixel.
package codec
