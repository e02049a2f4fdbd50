package subscription

import (
	"errors"
	"fmt"
	"math/big"
	"time"
)

// ErrInvalidProration reports arguments outside the proration rule's domain.
var ErrInvalidProration = errors.New("invalid proration arguments")

// FirstPaymentExact returns the seed's first payment
//
//	first_payment = price / billing_cycle_days * prorate_days
//
// as an exact rational number of minor currency units (e.g. cents). price is
// in minor units and must not be negative; billingCycleDays must be positive;
// prorateDays must lie in [0, billingCycleDays] (it is the number of days left
// until the next cycle starts, so it never exceeds the cycle).
func FirstPaymentExact(priceMinor int64, billingCycleDays, prorateDays int) (*big.Rat, error) {
	if priceMinor < 0 {
		return nil, fmt.Errorf("%w: negative price %d", ErrInvalidProration, priceMinor)
	}
	if billingCycleDays <= 0 {
		return nil, fmt.Errorf("%w: billing cycle of %d days", ErrInvalidProration, billingCycleDays)
	}
	if prorateDays < 0 || prorateDays > billingCycleDays {
		return nil, fmt.Errorf("%w: %d prorate days outside [0, %d]", ErrInvalidProration, prorateDays, billingCycleDays)
	}
	// price / days * prorate == price * prorate / days in exact arithmetic;
	// multiplying first is what makes it exact.
	num := new(big.Int).Mul(big.NewInt(priceMinor), big.NewInt(int64(prorateDays)))
	return new(big.Rat).SetFrac(num, big.NewInt(int64(billingCycleDays))), nil
}

// FirstPayment returns the first payment in whole minor units, rounded half
// up (a remainder of exactly half a minor unit rounds up, anything less
// rounds down). The intermediate product is computed exactly, so no float
// rounding can creep in: 999 cents over a 30-day cycle with 10 days left is
// 333 (exactly 333), and 1000 cents with 10 of 30 days is 333 (333.33...).
// Subscribing on the first day of a cycle (prorateDays == billingCycleDays)
// costs exactly the price.
func FirstPayment(priceMinor int64, billingCycleDays, prorateDays int) (int64, error) {
	r, err := FirstPaymentExact(priceMinor, billingCycleDays, prorateDays)
	if err != nil {
		return 0, err
	}
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if new(big.Int).Lsh(m, 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	// q <= priceMinor because prorateDays <= billingCycleDays, so it fits.
	return q.Int64(), nil
}

// ProrateDays returns the number of calendar days from the date of now up to
// (not including) the date of nextCycleStart, both read in nextCycleStart's
// location: subscribing on 15 January with the next cycle starting on
// 1 February gives 17 (15 to 31 January). It returns 0 when the next cycle
// starts today or earlier.
func ProrateDays(now, nextCycleStart time.Time) int {
	loc := nextCycleStart.Location()
	y1, m1, d1 := now.In(loc).Date()
	y2, m2, d2 := nextCycleStart.Date()
	a := time.Date(y1, m1, d1, 0, 0, 0, 0, time.UTC)
	b := time.Date(y2, m2, d2, 0, 0, 0, 0, time.UTC)
	days := int(b.Sub(a).Hours() / 24)
	if days < 0 {
		return 0
	}
	return days
}
