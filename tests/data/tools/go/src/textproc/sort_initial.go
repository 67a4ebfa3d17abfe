//go:build !optimized

package textproc

// SortWords sorts words in place: an insertion sort (the initial version).
func SortWords(words []string) {
	for i := 1; i < len(words); i++ {
		for j := i; j > 0 && words[j] < words[j-1]; j-- {
			words[j], words[j-1] = words[j-1], words[j]
		}
	}
}
