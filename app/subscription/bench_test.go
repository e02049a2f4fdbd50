package subscription

import (
	"context"
	"testing"
	"time"
)

type fixedChecker struct{ res Result }

func (f fixedChecker) Check(context.Context, Request) (Result, error) { return f.res, nil }

func BenchmarkCacheHit(b *testing.B) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCache(fixedChecker{Result{State: Active, Expires: now.Add(time.Hour)}}, CacheOptions{Clock: func() time.Time { return now }})
	req := Request{Organization: "o", AppIdentifier: "a"}
	if _, err := c.Check(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.Check(context.Background(), req)
		if err != nil || !Decide(res, err, now, Restrict).Allow {
			b.Fatal("not allowed")
		}
	}
}
