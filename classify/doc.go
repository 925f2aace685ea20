// Package classify is a k-nearest-neighbour classifier over a choice of
// metrics: Euclidean, Mahalanobis (Euclidean after whitening by the
// training covariance) and the SPCA metric (Euclidean in the responses of
// an SPCA model, spca.Model.Distance), with one SPCA model for all the
// training samples or one per class, the unwhitened unfolded
// coordinates of one model, or one model's responses restricted to the
// dimensions chosen by leave-one-out (SPCASelect, SelectDims). With one
// model per class the distance from a
// query to a sample of class c is measured in the responses of c's model,
// so each class is seen in its own curvilinear frame. SPCATangent keeps
// the input distances but shrinks them along the first curves of the
// per-class models at the query by a ratio (Classifier.Ratio): the
// neighbourhoods are ellipses along the class curves. SPCAFisher measures
// the same in a frame (Classifier.Frame) that weighs each direction by
// how far the classes lie apart along it near the samples: the mean
// outer product of every sample's gap (the mean of its nearest samples
// of another class minus that of its nearest of its own), so that an
// axis of noise spread alike in every class loses most of its weight.
//
// Select chooses k by leave-one-out cross-validation on the training
// samples, for a fair comparison of the metrics at each one's best k;
// TrainSelect also chooses the SPCA options (K and gamma, SelectionGrid)
// and SPCATangent's ratio (TangentRatios), and SPCAFisher's frame
// (the identity first, then FisherShares), by the same leave-one-out
// accuracy.
//
// # Use
//
// Train takes the training samples as the rows of an N×d matrix, their
// labels in [0, classes), the metric, k and the SPCA options of the
// SPCA metrics (spca.DefaultOptions; ignored by Euclidean and
// Mahalanobis); TrainSelect also chooses k and those options. Predict
// labels the rows of a matrix of new samples and Accuracy scores them
// against known labels. A classifier keeps copies of its training
// samples and labels (k-NN has no other model), so the caller may reuse
// its matrices; Save and Load, or WriteTo and Read, store it with its
// SPCA models in one file (ModelMagic). A Classifier is safe for
// concurrent Predict calls; Select and SelectDims change it.
//
// Samples or labels it cannot use (NaN or infinite values, another
// dimension than the training samples', not one label per sample)
// give a *DataError, bad arguments (k, the number of classes, the
// metric) an *OptionError and a damaged file a *FormatError; a failed
// SPCA fit gives spca's *spca.DataError or *spca.OptionError (errors.As
// finds them).
//
// Measured on the generated sets of testimages.GenerateClasses (README,
// "Classification", ten seed pairs), the SPCA metric with TrainSelect
// beats Euclidean and Mahalanobis k-NN on two sparse curved sets, where
// few samples lie along curves with noise thin across them (arcs-thin
// +2.9 points over Euclidean, arcs-scales +2.3; TestKNNSparseCurved),
// loses on spirals-thin (-1.9) and on moons5d (-3.9, irrelevant noisy
// axes weigh as much as the relevant ones, as with Mahalanobis; -0.6, a
// tie, with SPCASelect, which drops them, TestSelectDims), ties
// on the linear Gaussian set, and does not beat Euclidean k-NN on the
// dense curved sets, where Euclidean k-NN is within half a point of the
// Bayes rate (testimages.BayesPosterior) on three of four. SPCATangent
// beats both on spirals-thin (+1.9; TestKNNTangentSpiralsThin), where the
// SPCA fitted to both classes does not find the arms' direction but one
// fitted to each class does, and ties on moons5d (-0.1), whose irrelevant
// axes it weighs as Euclidean k-NN does. SPCAFisher beats both on moons5d
// (TestKNNFisherMoons5D): its frame gives the noise axes little weight,
// which no metric fitted without the labels can do; it keeps
// SPCATangent's wins on the 2-D sets, where the frame is chosen only
// when leave-one-out prefers it (classify/MEASUREMENTS.md, session 19).
package classify
