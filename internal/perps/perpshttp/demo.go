package perpshttp

import (
	"context"

	"pmx/internal/perps/perpsvc"
)

// The demo market (perpsvc/demo.go) through the server, for pmx serve --demo.

// Demo accounts.
const (
	DemoMaker = perpsvc.DemoMaker
	DemoTaker = perpsvc.DemoTaker
)

// MarketMakerOptions configures RunMarketMakers.
type MarketMakerOptions = perpsvc.MarketMakerOptions

// ErrNotDemo: RunMarketMakers was asked to run on an exchange that SeedDemo
// did not set up.
var ErrNotDemo = perpsvc.ErrNotDemo

// SeedDemo seeds an empty exchange with the demo market (perpsvc.SeedDemo).
func (s *Server) SeedDemo() (bool, error) { return s.svc.SeedDemo() }

// RunMarketMakers runs the demo market makers until ctx ends
// (perpsvc.RunMarketMakers).
func (s *Server) RunMarketMakers(ctx context.Context, o MarketMakerOptions) error {
	return s.svc.RunMarketMakers(ctx, o)
}
