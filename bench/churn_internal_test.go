package bench

import "testing"

func TestPercentile(t *testing.T) {
	hundred := make([]int64, 100)
	for i := range hundred {
		hundred[i] = int64(i + 1) // 1..100
	}
	thousand := make([]int64, 1000)
	for i := range thousand {
		thousand[i] = int64(i + 1) // 1..1000
	}
	for _, tc := range []struct {
		vals []int64
		p    float64
		want float64
	}{
		{hundred, 0.50, 50},
		{hundred, 0.99, 99},
		{hundred, 0.999, 100},
		{hundred, 1, 100},
		{thousand, 0.50, 500},
		{thousand, 0.99, 990},
		{thousand, 0.999, 999},
		{[]int64{7}, 0.5, 7},
		{[]int64{7}, 0.999, 7},
		{[]int64{1, 2, 3, 4}, 0.5, 2},
		{[]int64{10, 20, 30, 1000}, 0.99, 1000},
		{nil, 0.5, 0},
	} {
		if got := percentile(tc.vals, tc.p); got != tc.want {
			t.Errorf("percentile(%d values, %v) = %v, want %v", len(tc.vals), tc.p, got, tc.want)
		}
	}
}
