package server

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Every /query answer tells its client where it stands with both of its limits, so that a client
// can slow down before it is refused (docs/api.md): the request rate as RateLimit-Limit,
// RateLimit-Remaining and RateLimit-Reset (the IETF draft's names), the capacity budget as the
// same three under X-Capacity-. Limit is the bucket's size (the burst: requests, or read
// capacity units), Remaining what is in it now, whole units rounded down and never below zero,
// and Reset the seconds until it is full again. A limit that is off sends none of its headers.
const (
	rateHeaderPrefix     = "RateLimit-"
	capacityHeaderPrefix = "X-Capacity-"
)

// limitHeaders lists every header of both limits, with Retry-After: the headers a browser
// script may read across origins (Access-Control-Expose-Headers).
var limitHeaders = []string{
	rateHeaderPrefix + "Limit", rateHeaderPrefix + "Remaining", rateHeaderPrefix + "Reset",
	capacityHeaderPrefix + "Limit", capacityHeaderPrefix + "Remaining", capacityHeaderPrefix + "Reset",
	"Retry-After",
}

// exposedLimitHeaders is limitHeaders as the value of Access-Control-Expose-Headers.
var exposedLimitHeaders = strings.Join(limitHeaders, ", ")

// state is where key's bucket stands now: its tokens (negative when in debt) and how long
// until it is full.
func (t *bucketTable) state(key string) (tokens float64, untilFull time.Duration) {
	t.use(key, func(now time.Time, lim *rate.Limiter) {
		tokens, untilFull = lim.TokensAt(now), t.untilFull(now, lim)
	})
	return tokens, untilFull
}

// bucketView is where a bucket stands: its tokens (negative when in debt) and how long until it
// is full.
type bucketView struct {
	tokens    float64
	untilFull time.Duration
}

// setLimitHeaders writes one limit's three headers for a bucket of burst tokens as v shows it;
// unit is the tokens per reported unit.
func setLimitHeaders(h http.Header, prefix string, burst int, v bucketView, unit float64) {
	h.Set(prefix+"Limit", strconv.Itoa(int(float64(burst)/unit)))
	h.Set(prefix+"Remaining", strconv.Itoa(int(math.Max(0, math.Floor(v.tokens/unit)))))
	h.Set(prefix+"Reset", strconv.Itoa(int(math.Ceil(v.untilFull.Seconds()))))
}

// setRateHeaders writes the RateLimit-* headers of key's request rate.
func setRateHeaders(h http.Header, l *rateLimiter, key string) {
	tokens, untilFull := l.state(key)
	setLimitHeaders(h, rateHeaderPrefix, l.burst, bucketView{tokens, untilFull}, 1)
}

// setCapacityHeaders writes the X-Capacity-* headers of a capacity bucket as the budget store
// shows it (in a fleet, the shared bucket), in read capacity units.
func setCapacityHeaders(h http.Header, v bucketView, c *capacityBudget) {
	setLimitHeaders(h, capacityHeaderPrefix, c.burst, v, budgetUnitsPerRCU)
}
