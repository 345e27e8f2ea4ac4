package perpsvc

import (
	"errors"
	"strconv"
	"time"

	"pmx/internal/amount"
	"pmx/internal/chain"
	"pmx/internal/crypto/secp"
	"pmx/internal/perps/perps"
	"pmx/internal/perps/perpsauth"
)

// MoneyOptions configures withdrawals and the simulated chain that carries
// them and deposits (docs/perps.md "stand-ins for the chain").
type MoneyOptions struct {
	// Token is the collateral token a withdrawal must name (default
	// CollateralToken).
	Token string
	// WithdrawFee is the per-asset withdrawal fee in pUSD (default "1"),
	// withheld from the amount sent.
	WithdrawFee string
	// Chain is the simulated chain (internal/chain; zero fields: its
	// defaults, 2 s blocks and 3 confirmations). Genesis is the Unix epoch.
	Chain chain.Params
	// ManualChain: no timer; a block's effects appear on the next command
	// (tests move their clock and call Tick).
	ManualChain bool
}

// CollateralToken is the pUSD token address (/v1/info/assets).
const CollateralToken = "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"

func (o MoneyOptions) withDefaults() MoneyOptions {
	if o.Token == "" {
		o.Token = CollateralToken
	}
	if o.WithdrawFee == "" {
		o.WithdrawFee = "1"
	}
	if o.Chain.BlockTime <= 0 {
		o.Chain.BlockTime = chain.DefaultBlockTime
	}
	o.Chain.Confirmations = o.Chain.Required()
	return o
}

// WithdrawFee is the fee published on /v1/info/assets.
func (s *Service) WithdrawFee() string {
	f, _ := perps.ParseMicro(s.opt.Money.withDefaults().WithdrawFee)
	return perps.FormatMicro(f)
}

// MoneyResult is the outcome of a withdrawal or transfer: its id, and the
// machine's refusal ("" when accepted).
type MoneyResult struct {
	ID      uint64
	Refusal string
}

// Withdraw verifies an owner-signed Withdraw and debits the account; the
// withdrawal then waits for blocks. A resent identical request is answered
// with the first one's outcome and never executes twice (also after a
// restart: the journal re-seeds the replay cache and the machine keeps the
// outcome by replay key).
func (s *Service) Withdraw(req *perpsauth.Request) (MoneyResult, error) {
	mo := s.opt.Money.withDefaults()
	w, err := s.ver.VerifyWithdraw(req, s.now())
	if errors.Is(err, perpsauth.ErrReplayed) && w != nil {
		rk := w.Replay.Bytes()
		return s.resent(func(m *perps.Machine) (uint64, string, bool) { return m.OutcomeByReplay(rk[:]) })
	}
	if err != nil {
		return MoneyResult{}, AsError(err)
	}
	token, _ := secp.ParseAddress(mo.Token)
	var bad string
	switch {
	case w.Token != token:
		bad = "args.token: not a collateral token"
	case w.To.IsZero():
		bad = "args.to: the zero address"
	case len(w.Amount) > 18:
		bad = "args.amount: too large"
	}
	if bad != "" {
		s.ver.Replay().Remove(w.Replay)
		return MoneyResult{}, E(CodeInvalidRequest, bad)
	}
	raw, _ := strconv.ParseInt(w.Amount, 10, 64) // ≤ 18 digits: fits
	rk := w.Replay.Bytes()
	fee, _ := perps.ParseMicro(mo.WithdrawFee)
	return s.submitMoney(w.Replay, &perps.Command{Kind: perps.KWithdraw, Account: w.Account.Hex(), Replay: rk[:],
		Amount: amount.Micro(raw).String(), Fee: perps.FormatMicro(fee), To: w.To.Hex(),
		Required: mo.Chain.Confirmations, BlockTime: mo.Chain.BlockTime})
}

// resent answers a replayed signed request from the machine's record of its
// first outcome; if that is not applied yet (still in flight), 503: resend.
func (s *Service) resent(find func(m *perps.Machine) (uint64, string, bool)) (MoneyResult, error) {
	var r MoneyResult
	var ok bool
	if err := s.View(func(m *perps.Machine) { r.ID, r.Refusal, ok = find(m) }); err != nil || !ok {
		return MoneyResult{}, unavailable()
	}
	if r.Refusal != "" {
		return r, E(CodeMoneyRefused, r.Refusal)
	}
	return r, nil
}

func (s *Service) submitMoney(key perpsauth.ReplayKey, c *perps.Command) (MoneyResult, error) {
	ev, err := s.Submit(c)
	if err != nil {
		// Not journaled: the same signed request may be sent again.
		s.ver.Replay().Remove(key)
		s.log.Error("perps engine", "err", err)
		return MoneyResult{}, unavailable()
	}
	r := MoneyResult{ID: ev.ID, Refusal: ev.Err}
	switch {
	case ev.Err == "invalid_command":
		return r, E(CodeInvalidRequest, "amount")
	case ev.Err != "":
		return r, E(CodeMoneyRefused, ev.Err)
	}
	return r, nil
}

// MaxLabel bounds an internal transfer's label (bytes).
const MaxLabel = 64

// Transfer verifies an internalTransfer (signed by the source account's
// owner or one of its proxies) and moves collateral between two accounts in
// one command.
func (s *Service) Transfer(req *perpsauth.Request) (MoneyResult, error) {
	resolve := func(signer secp.Address, nowMs int64) (secp.Address, bool) {
		if a, ok := s.resolve(signer, nowMs); ok {
			return a, true
		}
		return signer, true // the owner itself
	}
	v, err := s.ver.VerifyOp(req, "internalTransfer", s.now(), resolve)
	if errors.Is(err, perpsauth.ErrReplayed) && v != nil {
		rk := v.Replay.Bytes()
		return s.resent(func(m *perps.Machine) (uint64, string, bool) { return m.TransferOutcome(rk[:]) })
	}
	if err != nil {
		return MoneyResult{}, AsError(err)
	}
	var args struct {
		Account, Token, Amount, To string
	}
	bad := ""
	if err := v.Op.DecodeArgs(&args); err != nil {
		s.ver.Replay().Remove(v.Replay)
		return MoneyResult{}, AsError(err)
	}
	acct, err1 := secp.ParseAddress(args.Account)
	to, err2 := secp.ParseAddress(args.To)
	token, _ := secp.ParseAddress(s.opt.Money.withDefaults().Token)
	tok, err3 := secp.ParseAddress(args.Token)
	amt, ok4 := perps.ParseMicro(args.Amount)
	switch {
	case err1 != nil:
		bad = "args.account: invalid address"
	case err2 != nil || to.IsZero():
		bad = "args.to: invalid address"
	case err3 != nil || tok != token:
		bad = "args.token: not a collateral token"
	case !ok4 || amt <= 0:
		bad = "args.amount: a positive decimal with at most 6 decimals"
	case req.Label == nil || len(*req.Label) < 1 || len(*req.Label) > MaxLabel:
		bad = "label: 1 to 64 bytes"
	}
	if bad != "" {
		s.ver.Replay().Remove(v.Replay)
		return MoneyResult{}, E(CodeInvalidRequest, bad)
	}
	if acct != v.Account {
		s.ver.Replay().Remove(v.Replay)
		return MoneyResult{}, E(CodeInvalidRequest, "signer_does_not_match_account")
	}
	rk := v.Replay.Bytes()
	return s.submitMoney(v.Replay, &perps.Command{Kind: perps.KTransfer, Account: acct.Hex(), To: to.Hex(),
		Amount: perps.FormatMicro(amt), Label: *req.Label, Replay: rk[:]})
}

// Tick submits a KTick: the chain's deposits and withdrawals advance to the
// service clock's time (the chain timer does this when a block is due; tests
// with ManualChain call it after moving their clock).
func (s *Service) Tick() error {
	_, err := s.Submit(&perps.Command{Kind: perps.KTick})
	return err
}

// Chain is the simulated chain deposits and withdrawals settle on.
func (s *Service) Chain() chain.Params { return s.opt.Money.withDefaults().Chain }

// SetWithdrawalStatus is the operator's stand-in for a chain outcome: it ends
// a pending withdrawal as removed or failed, refunding the account.
func (s *Service) SetWithdrawalStatus(id uint64, status string) error {
	if status != perps.WRemoved && status != perps.WFailed {
		return E(CodeInvalidOperatorInput, "status: removed or failed")
	}
	return s.operator(&perps.Command{Kind: perps.KWithdrawStatus, WID: id, Status: status}, nil)
}

// startChain puts the items of a data dir written before internal/chain
// on the chain (one `block` record with the block time), then, unless
// ManualChain, submits a KTick whenever a waiting item's next block is due.
func (s *Service) startChain() {
	ch := s.opt.Money.withDefaults()
	legacy := false
	if s.View(func(m *perps.Machine) { legacy = m.LegacyChainItems() }) == nil && legacy {
		if _, err := s.Submit(&perps.Command{Kind: perps.KBlock, BlockTime: ch.Chain.BlockTime}); err != nil {
			s.log.Warn("perps chain: adopting legacy deposits and withdrawals", "err", err)
		}
	}
	if ch.ManualChain {
		return
	}
	// Poll the machine's due time: a twentieth of a block, within [1ms, 100ms].
	poll := min(max(time.Duration(ch.Chain.BlockTime)*time.Millisecond/20, time.Millisecond), 100*time.Millisecond)
	go func() {
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			var due int64
			if s.View(func(m *perps.Machine) { due = m.NextChainDue() }) == nil && due > 0 && due <= s.now().UnixMilli() {
				if err := s.Tick(); err != nil {
					s.log.Warn("perps chain tick", "err", err)
				}
			}
		}
	}()
}

// wsWithdrawal and wsDeposit are the withdrawals and deposits channel items
// (perps.md §8.6).
type wsWithdrawal struct {
	ID     uint64 `json:"withdraw_id"`
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
	Fee    string `json:"fee"`
	To     string `json:"to"`
	Status string `json:"status"`
	Hash   string `json:"hash"`
}

type wsDeposit struct {
	Hash   string `json:"hash"`
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
	Status string `json:"status"`
}

// dispatchMoney pushes withdrawal and deposit status changes (one array per
// account per event) and the balances they changed, at once (besides the
// 5 s balances snapshot).
func (s *Service) dispatchMoney(buf []*Session, ev *perps.Event, ets int64) []*Session {
	for i := 0; i < len(ev.Withdrawals); {
		j := i
		for j < len(ev.Withdrawals) && ev.Withdrawals[j].Account == ev.Withdrawals[i].Account {
			j++
		}
		run := ev.Withdrawals[i:j]
		buf = s.send(buf, "withdrawals", "", run[0].Account, ets, func() []byte {
			out := make([]wsWithdrawal, len(run))
			for k := range run {
				w := run[k].Wire()
				out[k] = wsWithdrawal{ID: w.ID, Asset: w.Asset, Amount: w.Amount, Fee: w.Fee, To: w.To, Status: w.Status, Hash: w.Hash}
			}
			return marshal(out)
		})
		i = j
	}
	for i := 0; i < len(ev.Deposits); {
		j := i
		for j < len(ev.Deposits) && ev.Deposits[j].Account == ev.Deposits[i].Account {
			j++
		}
		run := ev.Deposits[i:j]
		buf = s.send(buf, "deposits", "", run[0].Account, ets, func() []byte {
			out := make([]wsDeposit, len(run))
			for k, d := range run {
				out[k] = wsDeposit{Hash: d.Deposit.Hash, Asset: d.Deposit.Asset, Amount: d.Deposit.Amount, Status: d.Deposit.Status}
			}
			return marshal(out)
		})
		i = j
	}
	for _, b := range ev.Balances {
		buf = s.send(buf, "balances", "", b.Account, ets, func() []byte { return marshal(b.Balance) })
	}
	return buf
}
