package resolvers

import (
	"context"

	"singletable/apperr"
	"singletable/auth"
	"singletable/graph/model"
	"singletable/loaders"
	"singletable/repository"
	"singletable/repository/commerce"
	"singletable/repository/saas"
	"singletable/repository/store"
)

// Scope checks where IDs enter the graph (the policy itself is auth's). The server has already
// refused root fields the caller's roles never allow; what is left here is the tenant: an ID
// outside the caller's scope is NOT_FOUND, decided from the ID alone, before any read (every ID
// carries its tenant), so that a foreign object costs exactly what a missing one does.

// visible checks a decoded global ID of node type d against the caller's scope: a denied ID is
// the NOT_FOUND a missing object of its type gets.
func visible(ctx context.Context, d model.AnyNode, parts []string) error {
	if auth.Caller(ctx).Sees(d.ScopeOf(parts)) != auth.Allow {
		return auth.Hidden(d.KindName())
	}
	return nil
}

// organizationsPage is `organizations` as the caller may see it: every organization, or an org
// role's own one.
func organizationsPage(ctx context.Context, repo *store.Store, args repository.PageArgs) (repository.Page[*saas.Organization], error) {
	if org, narrowed := auth.Caller(ctx).OwnOrganization(); narrowed {
		return ownOrganizationPage(ctx, repo, org, args)
	}
	return loaders.For(ctx).Organizations(ctx, args, nodes(ctx))
}

// customersPage is `customers` as the caller may see it: every customer, or a customer's own
// record.
func customersPage(ctx context.Context, repo *store.Store, args repository.PageArgs) (repository.Page[*commerce.Customer], error) {
	if c, narrowed := auth.Caller(ctx).OwnCustomer(); narrowed {
		return ownCustomerPage(ctx, repo, c, args)
	}
	return loaders.For(ctx).Customers(ctx, args, nodes(ctx))
}

// ownOrganizationPage is `organizations` narrowed to an org role's organization: one key lookup
// (batched like any other) rather than the Query of every organization.
func ownOrganizationPage(ctx context.Context, repo *store.Store, org string, args repository.PageArgs) (repository.Page[*saas.Organization], error) {
	return ownPage(ctx, repo, "organizations:"+org, args, func() (*saas.Organization, error) {
		return model.Organizations.Get(ctx, loaders.For(ctx), org)
	})
}

// ownCustomerPage is `customers` narrowed to a customer's own record.
func ownCustomerPage(ctx context.Context, repo *store.Store, customer string, args repository.PageArgs) (repository.Page[*commerce.Customer], error) {
	return ownPage(ctx, repo, "customers:"+customer, args, func() (*commerce.Customer, error) {
		return model.Customers.Get(ctx, loaders.For(ctx), customer)
	})
}

// ownPage is a list narrowed to the caller's one record: a page holding it (read by get) when it
// exists, empty when it does not, and empty after the first page.
func ownPage[T repository.Entity](ctx context.Context, repo *store.Store, list string, args repository.PageArgs, get func() (T, error)) (repository.Page[T], error) {
	if err := args.Validate(); err != nil {
		return repository.Page[T]{}, err
	}
	var v T
	present := false
	if args.After == "" {
		var err error
		v, err = get()
		if err != nil && apperr.CodeOf(err) != apperr.CodeNotFound {
			return repository.Page[T]{}, err
		}
		present = err == nil
	}
	p, err := repository.SolePage(repo.Repo, list, v, present, args)
	if err == nil {
		// The one record is the whole level: what it needs next is read ahead as for a list.
		// Its read went through the key loader's window: the round of what follows is not known.
		ctx = repository.WithoutRound(ctx)
		loaders.For(ctx).ReadAhead(ctx, loaders.LevelObjects{Level: nodes(ctx), Objects: entities(p.Items)})
	}
	return p, err
}
