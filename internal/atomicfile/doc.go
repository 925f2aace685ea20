// Package atomicfile writes files so that readers see either the old
// content or the complete new content, never a partial file.
//
// The data are written to a temporary file in the destination's directory,
// flushed to stable storage and then renamed over the destination. On any
// failure the temporary file is removed and the destination is left as it
// was.
package atomicfile
