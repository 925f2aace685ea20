// Package fence holds what the kernels' tests share to check that
// assembly reads and writes no byte past a slice: memory followed by a
// page the process may not touch (Linux; elsewhere fresh memory).
package fence
