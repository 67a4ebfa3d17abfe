package hashing

import (
	"strconv"
	"testing"
)

func BenchmarkDigest(b *testing.B) {
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		_ = Digest(data)
	}
}

// BenchmarkBucket reports a custom metric with b.ReportMetric: the share of keys that fall
// in bucket 0.
func BenchmarkBucket(b *testing.B) {
	hits := 0
	for i := 0; i < b.N; i++ {
		if Bucket(strconv.Itoa(i), 16) == 0 {
			hits++
		}
	}
	b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
}

// BenchmarkParse has the same name as a benchmark of package textproc.
func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = Parse("1234567")
	}
}
