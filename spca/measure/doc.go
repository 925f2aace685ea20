// Package measure provides the statistics that tests, benchmarks and
// figures use to check properties of Sequential Principal Curves Analysis
// (SPCA) transforms.
//
// SPCA maps data to curvilinear coordinates that, depending on the metric,
// unfold the data manifold, equalise the marginal densities or reduce the
// statistical dependence between the responses. The functions here
// quantify those properties:
//
//   - Spearman measures how monotonically a response follows a known
//     latent coordinate, regardless of nonlinear rescaling.
//   - KSUniform measures how far a response is from a uniform
//     distribution, which an infomax (γ = 1) metric should produce.
//   - MutualInformation and PairwiseMI estimate the statistical dependence
//     between responses with equal-frequency histograms, so that the
//     estimate does not change when a coordinate is transformed by a
//     strictly increasing function; dependence in the input domain and in
//     the transformed domain can thus be compared on an equal footing.
//   - Entropy estimates a differential entropy from a histogram.
//   - Quantile and Column are small helpers.
//   - PCA is linear principal component analysis, the baseline SPCA is
//     compared against.
//
// Functions that cannot produce an estimate from their input (too few
// samples, mismatched lengths, degenerate data) return NaN rather than
// panicking, so they can be used directly on experimental output; the
// documentation of each function lists these cases.
package measure
