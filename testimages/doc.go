// Package testimages generates synthetic data sets with known latent
// coordinates for testing and demonstrating Sequential Principal Curves
// Analysis (SPCA).
//
// Every generator draws N samples X (an N×d matrix) from a low-dimensional
// manifold embedded in 2-D or 3-D space and also returns, for each sample,
// the coordinates that generated it (Samples.Latent, named by
// Samples.LatentNames). Because the true coordinates are known, a test can
// check how well a nonlinear transform recovers them, for instance by rank
// correlation between the SPCA responses and the latent columns.
//
// The data sets are:
//
//   - Spiral: a 2-D spiral with a ridge-like (Laplacian) cross-section on
//     the first half of its arc and a flat (uniform) cross-section on the
//     second half, with a spread that grows along the curve.
//   - SwissRoll: the classic 3-D swiss roll.
//   - DelicadoFixed and DelicadoTwisted: a curved first principal curve in
//     3-D whose cross-sections are elongated, slightly bent clouds, so that
//     secondary principal curves exist and are curved; in the twisted
//     variant the elongation direction rotates along the first curve.
//   - Curve3D: a noisy 1-D helical curve in 3-D whose noise grows along the
//     curve like a horn.
//
// Generate and GenerateNoisy return them by name (Names), as `spca synth`
// does. The other generators, for the other jobs of the project:
//
//   - images to train and test codecs on: Texture (grey) and ColorTexture,
//     with some of the statistics of photographs;
//   - colour adaptation: Scene and SceneSet render the same generated scene
//     under D65 (environment A) and illuminant A (environment B), with
//     SceneTruth the colour-only truth and SceneWhites the two whites;
//     RelightPhoto relights a photograph (taken as A) with illuminant A;
//     Reflectances draws surface spectra for adapt.CorrespondingColours;
//   - classification: GenerateClasses returns labelled sets by name
//     (ClassSets, ClassTrainSize), with BayesPosterior for the Bayes rate.
//
// All generators are deterministic for a given seed: they use a PCG source
// from math/rand/v2 seeded with the seed and a per-generator constant, so
// equal arguments give bit-identical output on every platform. Nothing is
// downloaded.
package testimages
