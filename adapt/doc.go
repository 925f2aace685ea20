// Package adapt corrects colours seen under one light (environment B, for
// example tungsten, CIE A) so that they look as under another (environment
// A, for example daylight, D65), by the corresponding-pair procedure of
// the SPCA paper (section "Domain Adaptation"): learn SPCA on the colours
// of environment A and on those of environment B, and map a colour x_B to
//
//	x̂_A = R_A⁻¹(R_B(x_B))
//
// where R_A and R_B are the two SPCA transforms. With gamma = 1 (the
// default) the responses are equalised, so the mapping matches the colour
// distribution of B to that of A quantile by quantile along the principal
// curves: beyond the change of illuminant it also redistributes
// luminance, lifting the shadows that crowd B's dark end.
//
// # Use
//
//	model, err := adapt.Train(underA, underB, nil) // images; TrainSamples takes LMS samples (N×3 matrices)
//	mapper, err := model.Mapper(adapt.SPCA)        // or a baseline: adapt.PCAWhitening, adapt.CAT16, ...
//	err = mapper.MapLMS(dst, src)                  // colorspace.LMS colours; SRGBToLMS and LMSToSRGB convert
//	im, err := model.ImageMapperFor(adapt.SPCA, adapt.DefaultLUTSize, nil)
//	corrected, err := im.Apply(imgB, 0)            // what spca adapt apply does
//	lut, err := model.LUTFor(adapt.SPCA, 33, nil)  // lut.SaveCube("b-to-a.cube") for other programs
//	err = model.Save("adapt.model")                // Load, or WriteTo and Read
//
// The images (or samples) of the two environments need not show the same
// scenes, nor be as many: each SPCA model learns its environment's colour
// distribution, and the map pairs colours by their responses, not by
// their position. Evaluate, which scores a correction pixel by pixel,
// needs the same scenes under both lights. A Model and its Mappers are
// safe for concurrent use. Options (nil: DefaultOptions) are tuned for
// colour mapping; damaged model files give a *FormatError, mismatched or
// empty image sets wrap ErrBitDepth or ErrNoPixels, and an SPCA fit that
// fails wraps spca's *spca.DataError or *spca.OptionError.
//
// # Colours
//
// Colours are handled in the cone space of package colorspace: images are
// decoded from sRGB (IEC 61966-2-1) to linear RGB, converted to CIE XYZ
// and to Hunt–Pointer–Estévez LMS normalised so that D65 white is
// (1, 1, 1) (colorspace.XYZToLMS); mapped colours go back the same way,
// with linear RGB clipped to [0, 1] (LMSToSRGB).
//
// # Training
//
// Train draws a seeded uniform subsample of pixels (Options.Samples, 100000
// by default) from each environment's images, dark pixels included, since
// the distribution is what SPCA learns. It fits one SPCA geometry
// (origin, principal curves, lattice), with its dimensions along the
// principal axes of A's colours (Options.Directions: the first is
// luminance-like, its direction with positive components, along
// (1, 1, 1), the others chromatic), on the pooled colours of A and of
// g·x_B (every other sample of each; g below), and estimates each
// environment's metric on it (spca.Model.RefitMetric): the two models
// then differ only in the distributions they equalise, and two
// environments with the same distribution map onto each other by the
// identity. Training also records the means and principal axes of the
// two colour clouds for the baselines.
//
// Options.SeparateGeometry (spca adapt train --separate-geometry) fits
// SPCA on A and then on g·x_B with A's Directions() instead, as before
// issue 22's shared geometry. Two independent fits differ in their
// curves, lattice extents and twist even for one distribution, and the
// map moves colours by that difference: on Kodak photos relit with
// illuminant A, whose gained colours are distributed almost like A's, it
// adds about 5 CIEDE2000 to the gains' 1.45 (Kodak 01-12 → 13-24, mean
// CIEDE2000 6.38 with independent fits, 2.78 with the shared geometry).
//
// B's model is fitted not on B's colours but on g·x_B, with the diagonal
// gray-world (von Kries) gains g = mean_A / mean_B of the LMS training
// colours (Model.Gains), and the map is R_A⁻¹(R_B(g·x_B)): g is applied at
// the entry of the map, before R_B, by the exact map and so by the LUT
// built from it; the support and the anchor act on B's colours as they
// are. B is close to a diagonal LMS scaling of A, and B's own chromatic
// principal directions, paired with A's, sit 20-50° from the gray-world
// image of A's: without g the map twists hues (green leaves cyan on the
// relit photos). Options.NoGains (spca adapt train --no-gains) fits B as
// it is; model files before version 3 carry no gains and map as before
// (g = 1). Measurements: README, "Colour adaptation".
//
// Options.Alignment = AlignMatrix (spca adapt train --align matrix)
// replaces the diagonal gains by a full 3×3 matrix M (Model.Align, model
// format 5) fitted on corresponding pairs (FitAlignment: weighted least
// squares of x_A on x_B over the same pixels of image i of A and of B):
// B's model is fitted on M·x_B, the map is R_A⁻¹(R_B(M·x_B)) with the
// shared geometry, and the anchor is M. When M·x_B is distributed like
// x_A the SPCA part is near the identity. On relit photographs, where B
// is (nearly) a 3×3 linear image of A, M is nearly exact and SPCA then
// beats gray world (Mallett-Yuksel, Smits, Jakob-Hanika: 1.05, 0.94,
// 1.43 against 1.45, 1.32, 2.13), though M alone (the Aligned method)
// does better still (0.62, 0.45, 1.10): the highlight roll-off costs more
// than SPCA adds. On the generated scenes SPCA with M scores 7.89 (gains:
// 8.73), M alone 7.81, but SPCA's lightness distribution is no longer the
// closest to A's (L* W1 4.29 against PCA + whitening's 3.27) and the
// plain LUT loses its monotone rays.
//
// The default, AlignAuto (DefaultOptions; spca adapt train --align
// auto), chooses between the two from the training data: when the images
// of A and of B are pairs (equal numbers and sizes) it fits M on them and
// takes it if a linear map explains the pairs, AlignmentResidual (the
// weighted relative residual of M) below AutoAlignThreshold (0.1), else
// the gains. The residual separates the two kinds of data by a factor of
// 20: 0.012-0.021 on the relit photographs (every upsampling, both
// exposures), 0.41-0.45 on the generated scenes, whose B has its own
// shading and cast shadows. Model.AlignChoice (model format 6) records
// the choice and the residual; spca adapt train prints it and spca info
// shows it. Measurements: adapt/MEASUREMENTS.md.
//
// The SPCA options differ from spca's defaults (DefaultOptions): the
// coordinates of the two environments must correspond, and the mapping
// is sampled by a LUT, so it must be smooth. Stiff curves (K = 1: the
// local PCA over all reference colours, tapered) follow the structure
// the two environments share rather than each one's local detail;
// densities come from a wide kernel (8 × Silverman's rule) over windows of
// half the colours (spca.Options.Conditioning = 0.5), so that the mapping
// matches the broad shape of the two colour distributions rather than the
// histogram of each one's particular content: B's larger cast shadows
// would otherwise push its lit mid-tones down the quantiles and darken
// them. Narrower kernels (3 × Silverman) tie with PCA + whitening on the
// generated scenes; see DefaultOptions for the measurements.
//
// # Methods
//
// Every method is a Mapper (Model.Mapper):
//
//	spca           R_A⁻¹(R_B(x)), SPCAMap
//	pca-whitening  x_A = μ_A + V_A Λ_A^{1/2} Λ_B^{-1/2} V_Bᵀ (x − μ_B) (Webster & Mollon),
//	               axes paired by order of variance, signs agreeing
//	grayworld      von Kries: each cone scaled by mean_A / mean_B of the training colours
//	bradford       linearised Bradford from the white of B to the white of A (an oracle:
//	               it needs the true lights, Options.WhiteA/WhiteB; by default each
//	               white is estimated from the training colours, EstimateWhite)
//	cat02          the same with CIECAM02's CAT02 matrix
//	von-kries      the same with the Hunt–Pointer–Estévez cone matrix (colour-science's "Von Kries")
//	cat16          the same with CAM16's M16 matrix
//	uncorrected    the identity
//
// The SPCA map is trusted only where it was trained (SPCAMap, Support):
// both models are fitted with a density floor (DefaultDensityFloor), so
// that responses keep growing beyond the training colours rather than
// collapsing every brighter colour onto one response (the cause of the
// collapsed highlights: with the equalising metric a zero density gives
// a zero response length); and the map fades, with the distance from B's
// training colours (SupportBand, on a 32³ occupancy grid in sRGB) and
// from B's lattice (ResidualBand), near the ends of B's responses (the
// tails of its colours, where A's lattice is sheared: ResponseBand), and
// near black (DarkLuminance), into
// Anchor, the least-squares linear fit of the SPCA map on B's training
// colours, weighted by the response-end fade (colours whose responses
// leave [0, 1], where the bare map clamps, do not count). Outside the support the lattice of B folds (curves drawn from
// neighbouring starts cross), so the forward transform switches between
// solutions and the bare map jumps; the blend keeps the map continuous,
// takes black to black, and extrapolates linearly instead of clamping.
// Support.OutsideShare says how much of an image lies outside the
// training colours.
//
// Lightness never decreases along a ray from black (RayTable): the blend
// can darken a brighter input (where it fades from SPCA to a darker
// anchor, up to 7.5 L*; the bare SPCA map dips by about 1 L* inside the
// support), so the output takes its luminance from the running maximum
// of the blend's luminance along the ray from black through the input
// (in the sRGB-encoded cube), tabulated for 3×33² ray directions and 65
// radii and interpolated linearly (in Y^(1/3)); the blended colour keeps
// its chromaticity, and the highlight roll-off and gamut mapping follow:
// luminance above KneeShare (40 %) of A's brightest training luminance is
// rolled off so that the brightest colour of the cube (RayTable.Top)
// reaches exactly A's brightest, then chroma above GamutKnee (60 %) of
// the way to the gamut boundary is compressed smoothly at constant
// luminance, never reaching the boundary (gamutMap). Before that, colours
// near white and brighter than A's brightest are adapted (von Kries, at
// constant luminance) to the output of white (adaptHighlight,
// Model.HighlightGains, model format 7): white's output, an
// extrapolation far beyond A's white (deep blue on the Kodak-relit
// photos), then becomes a grey, and its neighbours keep their difference
// from it instead of being compressed onto it where A's brightest colour
// is white, the tip of the gamut (an input 3 % less red than white came
// out 0.42-0.48/255 from white's output; 1.6/255 now).
// The interpolation weights of the directions do not depend on the
// radius, so the rule holds exactly for the exact map; the LUT is built
// from the same map (its nodes follow the rule) and interpolates between
// rays, so a LUT alone does not (0.80 L* on the test model). Train stores
// the table in the model (Model.Rays, format 4); for older files it is
// built on first use (about as many evaluations as a 65-node LUT).
//
// # LUTs and images
//
// The exact SPCA mapping costs tens of microseconds per colour, so images
// are mapped through a 3-D LUT: BuildLUT evaluates a Mapper at the N³
// nodes of a grid over sRGB-encoded input [0, 1]³ (the working encoding:
// input and output are sRGB-encoded R'G'B', 8-bit values divided by 255),
// LUT.WriteCube and ReadCube read and write it in the Adobe/Resolve .cube
// format (red varying fastest), and LUT.Apply interpolates it
// tetrahedrally over whole images in parallel, keeping their size, bit
// depth and alpha. 8-bit images use precomputed decode tables and integer
// arithmetic (about 90 megapixels per second on two cores), 16-bit images
// float32. With DefaultLUTSize = 65 the LUT agrees with the exact SPCA
// mapping (ApplyExact) within 1/255 per channel on 99.9 % of the pixels
// of a held-out test scene (TestLUTAgreesWithExact); with spca's
// sharp-edged defaults (narrow kernels, small neighbourhoods) the exact
// mapping had kinks finer than the grid and only 85 % agreed.
//
// Images are mapped by SPCA through a LightnessLUT (Model.ImageMapperFor,
// `spca adapt apply`): the 65-node LUT interpolated in linear light, then
// scaled to the luminance the exact map gives the input (the RayTable,
// rolled off), so lightness never decreases along a ray from black, as in
// the exact map. It agrees with the exact map within 1/255 on at least
// 99.95 % of the pixels of every relit held-out photo kodim13-24 (the
// test model of the generated scenes, shared geometry; 98.0 % for kodim23
// with separate geometries; a LUT interpolated in sRGB encoding, separate
// geometries: 87-100 %, 6 of 12; see the README). A .cube
// file (LUT.WriteCube) carries the LUT alone, interpolated in sRGB
// encoding by other programs: it is the LUT's map, not the LightnessLUT's.
//
// # Evaluation
//
// Evaluate measures, for scenes rendered under both environments with
// pixel correspondence (testimages.Scene), the CIEDE2000 difference
// between each method's correction of the B rendering and the A rendering:
// mean and 95th percentile over all pixels and over the darkest quarter of
// B (the shadow region), and the distance between the lightness
// distributions. On the generated scenes (TestAcceptance) SPCA is best in
// the shadow region, as the seed expects (mean ΔE00 about 14 against 15
// for PCA + whitening and 16 for gray world), matches A's lightness
// distribution best, and over all pixels is below PCA + whitening (9.47
// against 9.69; 9.47-9.57 against 9.63-9.69 over four seeds of the
// training sample) and level with gray world, a diagonal scaling (9.42).
// The change of light geometry (shading, shadows) reorders pixels, and a
// transport of the whole distribution moves every pixel by the quantile
// it occupies: B's extra shadow pushes its lit mid-tones down the
// quantiles. With sharper densities (3 × Silverman) SPCA darkened them and
// lost in the mid-tones what it gained in the shadows (a tie with
// PCA + whitening, 9.54-9.84 against 9.61-9.75); the wide kernel of the
// defaults matches the broad shape of the distributions instead.
//
// EvalOptions.Truth adds a score against the colour-only truth: B's
// geometry and exposure lit by A's illuminant (testimages.SceneTruth for
// the generated scenes, testimages.RelightPhoto for photographs relit
// through Mallett-Yuksel spectra). A pure change of the light's colour
// moves B towards it; on the held-out generated scenes SPCA scores 15.2
// against 17.6 uncorrected (the oracles with the true whites about 1.5).
// CorrespondingColours maps reflectances lit by illuminant A (the
// ColorChecker of colorspace.ColorChecker, testimages.Reflectances) and
// measures u'v' against the same reflectances under D65: SPCA trained on
// the generated scenes 0.015 on the ColorChecker against 0.082 with no
// adaptation and 0.007-0.012 for the von Kries oracles.
//
// Train reports, besides distinct colours and gamut coverage (DataReport),
// the effective number of chromaticities of each environment
// (Chromaticities); Model.Warnings warns below MinChromaticities, which
// catches a training set of a few surfaces in many shades.
//
// # Files
//
// Models are saved in a versioned binary format with a magic number and a
// CRC-32C checksum, embedding the two SPCA model files (Save, Load,
// WriteTo, Read); reading another kind of file gives a *FormatError that
// says what it is.
package adapt
