//go:build optimized

package textproc

import "sort"

// SortWords sorts words in place: the standard library's sort (the optimized version).
func SortWords(words []string) {
	sort.Strings(words)
}
