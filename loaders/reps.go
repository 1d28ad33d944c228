package loaders

import (
	"context"

	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/hr"
)

// repListKey is a page of a list hanging from an employee: as an account rep, its accounts (no
// filter) or the orders of its accounts (AP26, AP27); its job history (AP29).
type repListKey struct {
	rep string
	orderFilterKey
	listPage
}

func repListKeys(reps []string, f commerce.OrderFilter, args repository.PageArgs, level Level) []repListKey {
	return keysOf(reps, func(r string) repListKey {
		return repListKey{rep: r, orderFilterKey: orderFilterOf(f), listPage: listPageOf(args, level)}
	})
}

// AccountsOfRep pages through a rep's customers by name (AP26).
func (l *Loaders) AccountsOfRep(ctx context.Context, rep string, args repository.PageArgs, level Level) (repository.Page[*commerce.Customer], error) {
	return l.lists.accounts.load(ctx, repListKeys([]string{rep}, commerce.OrderFilter{}, args, level)[0])
}

// StartAccountsOfReps starts the account lists of reps, every rep of a level, as one batch.
func (l *Loaders) StartAccountsOfReps(ctx context.Context, reps []string, args repository.PageArgs, level Level) {
	l.lists.accounts.startAll(ctx, repListKeys(reps, commerce.OrderFilter{}, args, level))
}

func (l *Loaders) readAccounts(ctx context.Context, k repListKey) (repository.Page[*commerce.Customer], error) {
	return l.repo.AccountsOfRep(ctx, k.rep, k.page.args())
}

// OrdersOfRep pages through the orders of a rep's accounts, newest first (AP27).
func (l *Loaders) OrdersOfRep(ctx context.Context, rep string, f commerce.OrderFilter, args repository.PageArgs, level Level) (repository.Page[*commerce.Order], error) {
	return l.lists.repOrders.load(ctx, repListKeys([]string{rep}, f, args, level)[0])
}

// StartOrdersOfReps starts the order lists of reps, every rep of a level, as one batch.
func (l *Loaders) StartOrdersOfReps(ctx context.Context, reps []string, f commerce.OrderFilter, args repository.PageArgs, level Level) {
	l.lists.repOrders.startAll(ctx, repListKeys(reps, f, args, level))
}

func (l *Loaders) readRepOrders(ctx context.Context, k repListKey) (repository.Page[*commerce.Order], error) {
	return l.repo.OrdersOfRep(ctx, k.rep, k.filter(), k.page.args())
}

// JobHistory pages through an employee's earlier jobs, the latest first (AP29).
func (l *Loaders) JobHistory(ctx context.Context, employee string, args repository.PageArgs, level Level) (repository.Page[*hr.JobHistory], error) {
	return l.lists.jobHistories.load(ctx, repListKeys([]string{employee}, commerce.OrderFilter{}, args, level)[0])
}

func (l *Loaders) readJobHistories(ctx context.Context, k repListKey) (repository.Page[*hr.JobHistory], error) {
	return l.repo.JobHistoryOf(ctx, k.rep, k.page.args())
}
