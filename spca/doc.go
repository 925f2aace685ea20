// Package spca implements Sequential Principal Curves Analysis (Laparra &
// Malo), an invertible nonlinear transform that generalises PCA: the
// straight principal axes become a sequence of principal curves, and the
// response along each curve is its length measured in a metric tuned to
// the data density.
//
// # The idea
//
// The first principal curve is drawn through an origin x^o in the middle
// of the data (Appendix algorithm of the seed: local PCA on k neighbours,
// eigenvectors aligned with the previous step, a step tau bent towards the
// local mean ahead with stiffness q). At the projection of a sample on
// that curve a secondary curve is drawn in the locally orthogonal
// subspace, at the projection on that one a third, and so on: every sample
// is reached by its own path of d curve segments. The response is
//
//	r_i = C_ii ∫ p_i(u)^gamma du
//
// along the i-th segment, with p_i the density of the samples along that
// curve (for secondary curves, of the samples near it: the conditional
// density). gamma = 0 unfolds the data (arc length), gamma = 1 makes every
// response uniform (infomax, nonlinear ICA) and gamma = 1/3 gives the
// MSE-optimal density of quantisation cells for transform coding. C_ii
// scales the dimensions, ranked by marginal entropy at the origin; by
// default every r_i spans [0, 1] on the training support, so C_ii = n_i
// gives n_i uniform quantisation bins in dimension i.
//
// # How this implementation makes it fast and exact
//
// The secondary curves drawn at a point depend only on the coordinates of
// that point on the earlier curves, so Fit draws them once, over a tensor
// lattice of start points u = (u_1, ..., u_d) in the unfolded domain, and
// the map u → x between lattice nodes is multilinear. The inverse then
// walks the metric tables and evaluates the lattice; the forward transform
// solves R^{-1}(r) = x: orthogonal projections give the start (most
// samples are already within tolerance), and damped Newton steps with the
// lattice Jacobian replace the seed's fixed-step correction
// r(k+1) = r(k) + 0.01 C D ∇U (x - x⊥). Every forward call reports its
// iterations and final residual (PointStats). Points outside the lattice
// are clamped to one lattice width beyond it and flagged.
//
// The choices the seed leaves open, and how they are made here:
//   - data are centred and scaled by their RMS radius, so Tau is
//     dimensionless; neighbourhoods use a seeded reference subsample of at
//     most MaxReference samples with smoothly tapered weights, which keeps
//     curves continuous in their start point;
//   - within near-degenerate local subspaces (round neighbourhoods) the
//     frame is carried by projection (parallel transport) instead of
//     snapping to arbitrary eigenvectors;
//   - the metric of a secondary curve uses the density of the samples whose
//     earlier coordinates lie within a window holding 10 % of the data, and
//     every curve's metric length is normalised to 1, anchored below the
//     conditional spread;
//   - the density along a curve is a narrow kernel estimate by default;
//     Options.Neighbours selects the seed's k-neighbours rule instead,
//     p = k / (2 N h_k), whose tails fall off like 1/distance: gamma > 0
//     then gives sparse tails more cells than their probability would
//     (at high resolutions this keeps gamma = 1 ahead of gamma = 0, as
//     in the seed's coding figure; at very low ones it costs gamma 1/3);
//   - every response spans [0, 1] over the lattice axis, which reaches
//     3 Tau beyond the samples; there the response grows by the density
//     floor and the tail of the kernel estimate. Options.ReflectDensity
//     folds the tail back inside the training range and
//     Options.FloorOfMean gives the floor the same share of every curve,
//     so that models on one geometry agree wherever neither has samples;
//   - directions at the origin are signed like the global PCA axes, so
//     related models orient their responses alike;
//   - with gamma = 0 the density weight is 1 over the data range of an
//     axis whatever the earlier coordinates, so the metric of each axis is
//     one table, not a family conditioned on u_<i: it is read (and
//     inverted) once instead of blending 2^(i-1) identical tables.
//
// Models are saved in a versioned binary format with a magic number and a
// CRC-32C checksum (Save, Load, WriteTo, Read); equal data, options and
// seed give byte-identical files.
//
// # Use
//
// Samples are the rows of a gonum matrix (N×d, d from 1 to 16); one
// sample is a []float64. The package knows nothing of images: packages
// codec, adapt and classify build on it.
//
//	opt := spca.DefaultOptions()         // then change what you need; Tune or TuneReduced choose K, Tau, Q
//	m, err := spca.Fit(x, opt)
//	r, stats, err := m.TransformBatch(x) // responses, one row per sample; Transform for one
//	back, err := m.InverseBatch(r)       // InverseBatchStats also counts clamped responses
//	err = m.RecordTypical(x)             // then InverseReduced maps the first D' responses back
//	d, err := m.Distance(a, b)           // |R(a) - R(b)|
//	err = m.Save("m.spca")               // Load, or WriteTo and Read
//
// A Model is safe for concurrent use, except SetScale, SetTypical,
// RecordTypical and SnapLattice, which change it. Errors are typed: data
// Fit or a transform cannot use (NaN or Inf, too few samples, constant or
// collinear data, the wrong dimension) give a *DataError, invalid Options
// an *OptionError, a damaged or foreign model file a *FormatError.
// Destination slices of the wrong length (Transform, Inverse)
// are programmer errors and panic.
package spca
