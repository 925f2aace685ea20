// Package hostile holds what the readers' tests share to check that a
// crafted file cannot make a reader allocate far beyond its size: the
// allocation bound of issue 23 (64 MB plus ten times the input), a way to
// measure what a call allocates, and builders of crafted files that
// declare large arrays without holding them.
package hostile
