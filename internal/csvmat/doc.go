// Package csvmat reads and writes numeric matrices as the plain CSV used by
// the spca command: one sample per line, values separated by commas.
//
// Spaces and tabs around values are allowed. Blank lines and lines whose
// first non-blank character is '#' are comments and are ignored. Every data
// line must have the same number of values, and every value must be a
// finite number in a form strconv.ParseFloat accepts (NaN and ±Inf are
// rejected). Write formats numbers with the shortest representation that
// parses back to the same float64, so Write followed by Read reproduces a
// matrix exactly.
//
// The path "-" stands for standard input in ReadFile and standard output
// in WriteFile; files are written atomically (see internal/atomicfile).
package csvmat
