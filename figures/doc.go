// Package figures rebuilds the figures and tables of the SPCA technical
// report (the seed) with this project's implementation, so that a reader
// can check the method and reuse the plots: Run writes, for each figure, a
// PNG and an SVG (gonum.org/v1/plot), the CSV of every plotted point beside
// them, and a README.md that embeds the figures, says in one paragraph what
// each shows and puts the project's numbers beside the seed's, naming the
// data each used.
//
// The figures (Names):
//
//	gamma         the 2-D spiral transformed with gamma 0, 1/3 and 1, Cartesian
//	              lattices of the response domain inverted into the input; MI and
//	              quantisation RMSE (seed Fig. "gamba")
//	subspaces     secondary curves along the first curve of the spiral for several
//	              origins; Delicado's 3-D manifolds as projections (Figs. "subspaces")
//	convergence   residual against iteration of the forward transform for the
//	              spiral, a colour set and a texture set (Fig. "convergencia")
//	coding        RMSE against sum(n_i) and PSNR against bits per pixel for PCA,
//	              SPCA gamma 1/3 and 1, PCA + Lloyd–Max and JPEG; decoded images
//	              at sum(n_i) = 66 (Fig. "decoded")
//	independence  conditional histograms of pairs of coefficients in the pixel,
//	              PCA and SPCA domains with their mutual information (Fig. "pajaritas")
//	adaptation    colour manifolds of two illuminants and the corrected colours;
//	              images corrected by each method, CIEDE2000 (Fig. "adaptation")
//	swissroll     3-D to 2-D reduction of a noisy swiss roll, coloured by the
//	              response, and the reduced samples mapped back (Figs. "swiss")
//	parameters    effect of k, tau and q on the curves; projection-error curves
//	              used to tune them (Appendix, Fig. "effects")
//
// Everything is generated from fixed seeds (testimages), so Run needs no
// data; Config.Images replaces the generated images of coding and
// independence by a real image set (the first half trains, the rest
// tests). Equal configurations give byte-identical files: no timestamps,
// no map iteration, and every parallel computation in the libraries used
// is per-sample and order independent.
//
// The package sits above spca, codec and adapt and only uses their public
// APIs; it is what the program spca-figures (also run as "spca figures") runs.
package figures
