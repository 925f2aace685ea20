// Package classify is a k-nearest-neighbour classifier over a choice of
// metrics: Euclidean, Mahalanobis (Euclidean after whitening by the
// training covariance) and the SPCA metric (Euclidean in the responses of
// an SPCA model, spca.Model.Distance), with one SPCA model for all the
// training samples or one per class. With one model per class the
// distance from a query to a sample of class c is measured in the
// responses of c's model, so each class is seen in its own curvilinear
// frame.
//
// Select chooses k by leave-one-out cross-validation on the training
// samples, for a fair comparison of the metrics at each one's best k.
//
// Measured on the generated sets of testimages.GenerateClasses (README,
// "Classification"), the SPCA metric does not beat Euclidean or
// Mahalanobis k-NN: Euclidean k-NN is within half a point of the Bayes
// rate (testimages.BayesPosterior) on four of the five sets, and one
// model per class measures distances in frames that are not comparable
// (a class's responses saturate outside its own support, which is where
// the classes overlap).
package classify
