package commerce

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"singletable/apperr"
	"singletable/repository"
)

// MaxRankingMonths bounds the months a ranking of account reps reads: one Query each.
const MaxRankingMonths = 36

// AccountsOfRep pages through the customers whose account rep is rep, by name (AP26: GSI1
// EMP#<e>#ACCOUNTS).
func (r *Commerce) AccountsOfRep(ctx context.Context, rep string, args repository.PageArgs) (repository.Page[*Customer], error) {
	if err := repository.CheckID("id", rep); err != nil {
		return repository.Page[*Customer]{}, err
	}
	pk := repAccountsPK(rep)
	return repository.QueryPage[*Customer](ctx, r.Repo, AccountsOfRep.Query(repository.Join("accounts", pk), pk), args)
}

// OrdersOfRep pages through the orders placed for rep's customers while it was their rep, newest
// first (AP27: GSI2 EMP#<e>#ORDERS, the order id between the bounds of the placed range, read
// backwards). A status is a filter on that range: pages are still full, the Query reads on until
// it has them (or the range ends).
func (r *Commerce) OrdersOfRep(ctx context.Context, rep string, f OrderFilter, args repository.PageArgs) (repository.Page[*Order], error) {
	if err := repository.CheckID("id", rep); err != nil {
		return repository.Page[*Order]{}, err
	}
	if f.Status != nil && !f.Status.valid() {
		return repository.Page[*Order]{}, apperr.InvalidInput("status", "unknown order status")
	}
	lo, hi, ok := repository.IDRange(f.PlacedAfter, f.PlacedBefore)
	if !ok {
		return repository.Page[*Order]{HasPreviousPage: args.After != ""}, nil
	}
	pk := RepOrdersPK(rep)
	q := OrdersOfRep.Query(repository.Join("reporders", pk, lo, hi), pk, lo, hi)
	if f.Status != nil {
		q.Scope = repository.Join(q.Scope, string(*f.Status))
		q.Filter, q.Names = "#status = :status", map[string]string{"#status": "status"}
		q.Values[":status"] = repository.StringValue(string(*f.Status))
	}
	return repository.QueryPage[*Order](ctx, r.Repo, q, args)
}

// RepTotal is one rep's sales over a range of months.
type RepTotal struct {
	RepID      string
	TotalCents int64
	Orders     int
}

// TopAccountReps ranks the account reps by their sales in the months from..to touch (UTC; whole
// months: the totals are kept per month), highest total first, and returns the first. It reads
// one Query per month (AP28: PK = REPSALES#<yyyy-mm>), the months at once.
func (r *Commerce) TopAccountReps(ctx context.Context, from, to time.Time, first int) ([]RepTotal, error) {
	if first < 1 || first > repository.MaxPageSize {
		return nil, apperr.InvalidInput("first", "first must be between 1 and %d", repository.MaxPageSize)
	}
	months, err := monthsBetween(from, to)
	if err != nil {
		return nil, err
	}
	var (
		mu     sync.Mutex
		totals = map[string]*RepTotal{}
	)
	g, gctx := errgroup.WithContext(ctx)
	for _, m := range months {
		g.Go(func() error {
			items, err := r.QueryAll(gctx, RepSalesOfMonth.Input(r.Table(), repSalesPK(m)))
			mu.Lock()
			defer mu.Unlock()
			for _, it := range items {
				t := totals[repository.StringAttr(it, "repId")]
				if t == nil {
					t = &RepTotal{RepID: repository.StringAttr(it, "repId")}
					totals[t.RepID] = t
				}
				t.TotalCents += int64(repository.IntAttr(it, "totalCents"))
				t.Orders += repository.IntAttr(it, "orders")
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return rank(totals, first), nil
}

// rank orders totals by total, then orders, then rep id (a stable order for ties), and keeps
// the first n with any order.
func rank(totals map[string]*RepTotal, n int) []RepTotal {
	out := make([]RepTotal, 0, len(totals))
	for _, t := range totals {
		if t.Orders > 0 {
			out = append(out, *t)
		}
	}
	slices.SortFunc(out, func(a, b RepTotal) int {
		return cmp.Or(cmp.Compare(b.TotalCents, a.TotalCents), cmp.Compare(b.Orders, a.Orders), cmp.Compare(a.RepID, b.RepID))
	})
	return out[:min(n, len(out))]
}

// monthsBetween are the months (yyyy-mm, UTC) from's to to's, both included; BAD_USER_INPUT for
// a range that ends before it starts or spans more than MaxRankingMonths.
func monthsBetween(from, to time.Time) ([]string, error) {
	from, to = from.UTC(), to.UTC()
	if to.Before(from) {
		return nil, apperr.InvalidInput("to", "to must not be before from")
	}
	start := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
	var months []string
	for m := start; !m.After(to); m = m.AddDate(0, 1, 0) {
		if len(months) == MaxRankingMonths {
			return nil, apperr.InvalidInput("to", "a ranking spans at most %d months", MaxRankingMonths)
		}
		months = append(months, SalesMonth(m))
	}
	return months, nil
}
