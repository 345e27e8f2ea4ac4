package postgres_test

import (
	"context"
	"testing"
	"time"

	"pmx/internal/data/ledger"
	"pmx/internal/data/postgres"
	"pmx/internal/data/sqlite"
	"pmx/internal/pgsql/pgtest"
)

// A read node has no hot model, so its page cache keys every page by the
// store's generation: the wallet and market generations it reports move
// whenever it reloads after a writer's commit (a constant one would pin a
// wallet's feeds, positions or a market's holders in its cache forever).
func TestReadNode_ScopedGenerationsMoveWithEveryWriterCommit(t *testing.T) {
	evs := demoWorld(t, 0.003)
	clock := func() time.Time { return now }
	url := pgtest.DB(t)
	w, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: clock}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	half := len(evs) / 2
	if _, err := w.Apply(context.Background(), evs[:half]); err != nil {
		t.Fatal(err)
	}
	node, err := postgres.Open(context.Background(), url, postgres.Options{Options: sqlite.Options{Clock: clock}, Follower: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	var user, cond string
	for _, e := range evs[half:] {
		if e.Kind == ledger.KindTrade {
			user = e.Taker
			break
		}
	}
	for _, e := range evs[:half] {
		if e.Kind == ledger.KindMarket {
			cond = e.ConditionID
		}
	}
	if user == "" || cond == "" {
		t.Fatal("no trade in the second half or no market in the first")
	}
	gens := func() [4]uint64 {
		return [4]uint64{node.Generation(), node.WalletGeneration(user), node.PositionsGeneration(user),
			node.HoldersGeneration([]string{cond})}
	}
	before := gens()
	if _, err := w.Apply(context.Background(), evs[half:]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for node.Generation() == before[0] {
		if time.Now().After(deadline) {
			t.Fatal("the read node never reloaded after the writer's commit")
		}
		time.Sleep(20 * time.Millisecond)
	}
	after := gens()
	for i, name := range []string{"store", "wallet", "positions", "holders"} {
		if after[i] <= before[i] {
			t.Errorf("%s generation did not move on the read node: %d then %d", name, before[i], after[i])
		}
	}
}
