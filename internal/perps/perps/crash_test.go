package perps_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"pmx/internal/exchange/engine"
	"pmx/internal/exchange/engine/enginetest"
	"pmx/internal/perps/perps"
)

// TestCrashRecovery runs the engine crash harness on the perps machine:
// concurrent traders (deposits, placements of every kind, modifies, cancels
// by id and coid, cancel-all, ticks, in-flight windows switched on and
// off, deposits and withdrawals on the chain) under SIGKILL; every
// acknowledged command survives and recovery (snapshot + journal tail)
// hashes as a clean replay.
func TestCrashRecovery(t *testing.T) {
	cycles := 3
	if os.Getenv("PMX_LONG") != "" {
		cycles = 40
	}
	enginetest.CrashRecovery(t, enginetest.Workload[perps.Event]{
		New:       func() engine.Machine[perps.Event] { return perps.New(perps.Config{}) },
		Producers: 4,
		Producer:  perpsProducer,
	}, cycles, 11)
}

// perpsProducer is trader p's deterministic command stream.
func perpsProducer(seed uint64, p int) func() (int64, []byte) {
	rng := rand.New(rand.NewPCG(seed, uint64(p)))
	acct := fmt.Sprintf("0x%040x", p+1)
	ts, n := int64(1_700_000_000_000), 0
	var oids []uint64 // guesses: ids are global, so some name other traders' orders
	return func() (int64, []byte) {
		n++
		ts += int64(rng.IntN(3))
		var c perps.Command
		switch {
		case n == 1 && p == 0:
			c = perps.Command{Kind: perps.KCreateInstrument, Instrument: &perps.InstrumentSpec{Symbol: "BTC-USD",
				Category: "crypto", PriceDecimals: 1, QtyDecimals: 2, MaxLeverage: 20, MinNotional: "1", MaxPrice: "2000"}}
		case n == 2:
			c = perps.Command{Kind: perps.KDeposit, Account: acct, Amount: "1000000"}
		default:
			switch r := rng.IntN(100); {
			case r < 50:
				px := strconv.Itoa(990 + rng.IntN(21))
				tif := []string{"gtc", "gtc", "ioc", "fok"}[rng.IntN(4)]
				o := perps.OrderReq{IID: 1, Buy: rng.IntN(2) == 0, P: &px, Qty: strconv.Itoa(1 + rng.IntN(5)), TIF: &tif,
					PO: tif == "gtc" && rng.IntN(5) == 0, RO: rng.IntN(10) == 0}
				if rng.IntN(3) == 0 {
					o.C = fmt.Sprintf("%032x", rng.Uint64())
				}
				c = perps.Command{Kind: perps.KCreateOrders, Account: acct, Orders: []perps.OrderReq{o}}
				oids = append(oids, uint64(n*4+p)) // a plausible id
			case r < 65 && len(oids) > 0:
				c = perps.Command{Kind: perps.KCancel, Account: acct, OIDs: []uint64{oids[rng.IntN(len(oids))], uint64(1 + rng.IntN(n))}}
			case r < 75:
				c = perps.Command{Kind: perps.KModify, Account: acct, Modifies: []perps.ModifyReq{{OID: uint64(1 + rng.IntN(n)),
					P: strconv.Itoa(990 + rng.IntN(21)), Qty: strconv.Itoa(1 + rng.IntN(6))}}}
			case r < 80:
				c = perps.Command{Kind: perps.KCancelAll, Account: acct}
			case r < 85:
				c = perps.Command{Kind: perps.KIndex, IID: 1, Price: strconv.Itoa(990 + rng.IntN(21))}
			case r < 86: // money on a 1 ms chain, so confirmations move within the run
				c = perps.Command{Kind: perps.KWithdraw, Account: acct, Amount: strconv.Itoa(1 + rng.IntN(50)), Fee: "1",
					To: "0x00000000000000000000000000000000000000cc", Required: 3, BlockTime: 1}
			case r < 87:
				c = perps.Command{Kind: perps.KDeposit, Account: acct, Amount: "10", Required: 2, BlockTime: 1}
			case r < 88 && p == 0:
				f := perps.Flight{AcceptMs: int64(rng.IntN(3)), ModifyMs: int64(rng.IntN(3)), RiskMs: int64(rng.IntN(2))}
				c = perps.Command{Kind: perps.KConfig, Flight: &f}
			default:
				c = perps.Command{Kind: perps.KTick}
			}
		}
		return ts, c.Encode()
	}
}
