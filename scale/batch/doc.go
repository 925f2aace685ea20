// Package batch builds the Apache Beam pipelines of spca-batch: encode,
// decode, adapt apply and codec eval over sets of images, on any Beam
// runner (prism in-process by default, Flink, Spark or Dataflow through
// the portable runner).
//
// Each image is processed by the same library calls as the spca command
// (codec.Encode, codec.Decode, adapt's LUT, codec.Evaluate), so outputs
// are byte-identical to it. A pipeline expands its inputs (globs,
// directories walked recursively, list files) through Beam's filesystem
// layer, gives every input an output name under the output directory
// (inputs that would collide are reported, not overwritten), processes
// the images with the model loaded once per worker process, and writes a
// manifest of JSON lines (Record), one per input, sorted by input.
//
// Failures of single images are caught in the DoFn and land in the
// manifest: prism never retries and a failing bundle would fail the job.
// Outputs are written atomically together with a stamp holding the job
// key (operation, model id and options), so a re-run skips the outputs
// already written for the same key (idempotent retries).
package batch
