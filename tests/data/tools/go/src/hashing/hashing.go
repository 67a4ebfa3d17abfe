// Package hashing is the second package of the benchmarks that speeduptest's Go reader is
// tested on: the same code in the initial and optimized builds.
package hashing

import (
	"crypto/sha256"
	"hash/fnv"
	"strconv"
)

// Digest is the SHA-256 of data.
func Digest(data []byte) [32]byte {
	return sha256.Sum256(data)
}

// Bucket maps a key to one of n buckets (FNV-1a).
func Bucket(key string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// Parse reads a decimal number, or -1.
func Parse(text string) int {
	n, err := strconv.Atoi(text)
	if err != nil {
		return -1
	}
	return n
}
