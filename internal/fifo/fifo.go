// Package fifo makes named pipes for tests of what commands do when an
// output or input is not a regular file. Only Unix has them; elsewhere
// Make returns an error and the tests that need one skip.
package fifo
