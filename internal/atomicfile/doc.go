// Package atomicfile writes files so that readers see either the old
// content or the complete new content, never a partial file.
//
// The data are written to a temporary file in the destination's directory,
// flushed to stable storage and then renamed over the destination. On any
// failure the temporary file is removed and the destination is left as it
// was.
//
// A destination that is not a regular file (a FIFO, a device) or is one
// of the process's inputs (Protect, compared by device and inode) is never
// replaced; a replaced file keeps its mode. Abort removes the temporary
// files of writes in progress, for a signal handler; Check tells before
// long work whether a destination can be written. Group makes a command
// writing many files flush them to disk together, with one call, before
// renaming them: the fsync of each was a measurable part of a batch.
package atomicfile
