package textproc

import (
	"strconv"
	"strings"
	"testing"
)

func BenchmarkSortWords(b *testing.B) {
	for _, size := range []int{10, 1000} {
		words := Words(size)
		buffer := make([]string, size)
		b.Run("size="+strconv.Itoa(size), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				copy(buffer, words)
				SortWords(buffer)
			}
		})
	}
}

func BenchmarkJoin(b *testing.B) {
	words := Words(100)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = Join(words)
	}
}

func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 200; i++ {
		sb.WriteString(strconv.Itoa(i * 7919))
		sb.WriteByte(' ')
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		_ = Parse(text)
	}
}
