package words

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Count(0, "batch", "batches"), "0 batches"},
		{Count(1, "batch", "batches"), "1 batch"},
		{Count(int64(2), "error record", "error records"), "2 error records"},
		{Times(1), "once"},
		{Times(2), "twice"},
		{Times(int64(7)), "7 times"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
