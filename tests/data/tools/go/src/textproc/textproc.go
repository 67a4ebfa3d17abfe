// Package textproc is a small text-processing package whose benchmarks speeduptest's Go
// reader is tested on. Only SortWords differs between the initial and optimized builds
// (build tag "optimized"); everything else is the same code in both.
package textproc

import (
	"strconv"
	"strings"
)

// Words returns n pseudo-random lower-case words (a fixed linear congruential sequence).
func Words(n int) []string {
	words := make([]string, n)
	state := uint32(12345)
	for i := range words {
		var b strings.Builder
		for k := 0; k < 8; k++ {
			state = state*1664525 + 1013904223
			b.WriteByte(byte('a' + state>>24%26))
		}
		words[i] = b.String()
	}
	return words
}

// Join concatenates words with spaces, growing a string (allocates once per word).
func Join(words []string) string {
	s := ""
	for _, w := range words {
		s += w + " "
	}
	return s
}

// Parse reads space-separated integers.
func Parse(text string) []int {
	fields := strings.Fields(text)
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}
