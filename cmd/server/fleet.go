package main

import (
	"context"
	"flag"
	"log/slog"

	"singletable/changefeed"
	"singletable/cmd/internal/settings"
	"singletable/fleet"
	"singletable/repository/store"
	"singletable/repository/stream"
	"singletable/server"
)

// fleetFlags declares REDIS_URL; validate checks it after parsing. Unset, the instance keeps its
// stream reader, limits and persisted queries to itself.
func fleetFlags(fs *flag.FlagSet, url *string, env settings.Env) (validate func(bad func(string, ...any))) {
	fs.StringVar(url, "redis-url", env.String("REDIS_URL", ""), "Redis (or Valkey) shared by a fleet of instances: one stream reader, rate limits, capacity budgets and persisted queries across instances; unset keeps them in this instance (env REDIS_URL)")
	return func(bad func(string, ...any)) {
		if *url == "" {
			return
		}
		if err := fleet.ValidURL(*url); err != nil {
			bad("REDIS_URL / -redis-url: not a redis:// or rediss:// URL (%v)", err)
		}
	}
}

// joinFleet connects to the fleet's Redis when REDIS_URL is set (nil otherwise), and points the
// handler's limits and persisted queries at it.
func joinFleet(cfg config, log *slog.Logger, serverCfg *server.Config) (*fleet.Fleet, error) {
	if cfg.redisURL == "" {
		return nil, nil
	}
	f, err := fleet.Open(cfg.redisURL, fleet.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	if err := f.Ping(context.Background()); err != nil {
		log.Warn("REDIS_URL does not answer yet; limits stay per instance and subscriptions unavailable until it does", "error", err.Error())
	}
	log.Info("part of a fleet: the stream reader, limits and persisted queries are shared through Redis", "instance", f.Instance())
	serverCfg.SharedLimits, serverCfg.SharedPersistedQueries = f, f
	return f, nil
}

// changeSource is where the hub gets the table's changes: the instance's own stream reader, or,
// in a fleet, the fleet's feed (one reader for all, chosen by a lease, published through Redis).
func changeSource(repo *store.Store, f *fleet.Fleet) (changefeed.Source, func(context.Context)) {
	if f == nil {
		return repo.StreamReader(stream.StreamOptions{}), func(context.Context) {}
	}
	feed := f.Feed(repo, stream.StreamOptions{})
	return feed, func(ctx context.Context) { _ = feed.Release(ctx) }
}
