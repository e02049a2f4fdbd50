package subscription

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstPayment(t *testing.T) {
	tests := []struct {
		name                 string
		price                int64
		cycle, prorate       int
		want                 int64
		exactNum, exactDenom int64
	}{
		{"start of cycle costs the full price", 999, 30, 30, 999, 999, 1},
		{"middle of an even cycle costs half", 1000, 30, 15, 500, 500, 1},
		{"thirds round down", 1000, 30, 10, 333, 1000, 3},
		{"two thirds round up", 2000, 30, 10, 667, 2000, 3},
		{"exact half rounds up", 1, 2, 1, 1, 1, 2},
		{"just under half rounds down", 4, 9, 1, 0, 4, 9},
		{"no day left costs nothing", 1999, 31, 0, 0, 0, 1},
		{"free app", 0, 30, 12, 0, 0, 1},
		// A float computation (0.1+0.2 style) would be off here:
		// 29 / 100 * 100 in float64 is 28.999999999999996.
		{"no float artefacts", 29, 100, 100, 29, 29, 1},
		{"largest price, full cycle", math.MaxInt64, 31, 31, math.MaxInt64, math.MaxInt64, 1},
		{"largest price, half cycle", math.MaxInt64, 30, 15, 1 << 62, math.MaxInt64, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FirstPayment(tc.price, tc.cycle, tc.prorate)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)

			exact, err := FirstPaymentExact(tc.price, tc.cycle, tc.prorate)
			require.NoError(t, err)
			want := new(big.Rat).SetFrac(big.NewInt(tc.exactNum), big.NewInt(tc.exactDenom))
			assert.Equal(t, 0, exact.Cmp(want), "exact %s, want %s", exact, want)
		})
	}
}

// TestFirstPaymentRoundingRule checks the rounding rule over a grid against
// its definition: the result r satisfies price*prorate/cycle - 1/2 < r <=
// price*prorate/cycle + 1/2, i.e. -cycle < 2*(r*cycle - price*prorate) <= cycle.
func TestFirstPaymentRoundingRule(t *testing.T) {
	for _, price := range []int64{0, 1, 7, 99, 100, 999, 1234, 4999, 100_000} {
		for cycle := 1; cycle <= 31; cycle++ {
			prev := int64(-1)
			for prorate := 0; prorate <= cycle; prorate++ {
				r, err := FirstPayment(price, cycle, prorate)
				require.NoError(t, err)
				diff := 2 * (r*int64(cycle) - price*int64(prorate))
				assert.True(t, -int64(cycle) < diff && diff <= int64(cycle),
					"price %d cycle %d prorate %d gave %d", price, cycle, prorate, r)
				assert.GreaterOrEqual(t, r, prev, "more days never cost less")
				assert.LessOrEqual(t, r, price)
				prev = r
			}
		}
	}
}

func TestFirstPaymentRejectsInvalidArguments(t *testing.T) {
	for _, tc := range []struct {
		price          int64
		cycle, prorate int
	}{
		{-1, 30, 1}, {100, 0, 0}, {100, -30, 1}, {100, 30, -1}, {100, 30, 31},
	} {
		_, err := FirstPayment(tc.price, tc.cycle, tc.prorate)
		assert.ErrorIs(t, err, ErrInvalidProration, "%+v", tc)
	}
}

func TestProrateDays(t *testing.T) {
	utc := time.UTC
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		ny = time.FixedZone("EST", -5*3600)
	}
	tests := []struct {
		name      string
		now, next time.Time
		want      int
	}{
		{"mid month", time.Date(2026, 1, 15, 10, 0, 0, 0, utc), time.Date(2026, 2, 1, 0, 0, 0, 0, utc), 17},
		{"first day of the cycle", time.Date(2026, 1, 1, 23, 0, 0, 0, utc), time.Date(2026, 2, 1, 0, 0, 0, 0, utc), 31},
		{"last day", time.Date(2026, 1, 31, 23, 59, 0, 0, utc), time.Date(2026, 2, 1, 0, 0, 0, 0, utc), 1},
		{"cycle starts today", time.Date(2026, 2, 1, 8, 0, 0, 0, utc), time.Date(2026, 2, 1, 0, 0, 0, 0, utc), 0},
		{"cycle already started", time.Date(2026, 3, 1, 0, 0, 0, 0, utc), time.Date(2026, 2, 1, 0, 0, 0, 0, utc), 0},
		{"leap february", time.Date(2028, 2, 1, 0, 0, 0, 0, utc), time.Date(2028, 3, 1, 0, 0, 0, 0, utc), 29},
		{"across a DST change", time.Date(2026, 3, 1, 12, 0, 0, 0, ny), time.Date(2026, 4, 1, 0, 0, 0, 0, ny), 31},
		// 02:00 UTC on 31 January is still 30 January in New York.
		{"now read in the cycle's zone", time.Date(2026, 1, 31, 2, 0, 0, 0, utc), time.Date(2026, 2, 1, 0, 0, 0, 0, ny), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ProrateDays(tc.now, tc.next))
		})
	}
}
