package perps

// Command kinds.
const (
	KCreateInstrument = "instrument"
	KDeposit          = "deposit"
	KIndex            = "index"
	KCreateProxy      = "createProxy"
	KDeleteProxy      = "deleteProxy"
	KCreateOrders     = "createOrders"
	KModify           = "modifyOrders"
	KModifyCOID       = "modifyOrdersCOID"
	KCancel           = "cancelOrders"
	KCancelCOID       = "cancelOrdersCOID"
	KCancelAll        = "cancelAll"
	// Operator and engine commands (modes.go); no public route submits them.
	KConfig      = "config"      // Flight: the in-flight windows from now on
	KMode        = "mode"        // Mode (+ RetryAfter): exchange-wide trading mode
	KLiquidating = "liquidating" // Account, On (+ IID: its isolated position's): the liquidation flag
)

// Command is one journaled input (record.go: its binary journal record; the
// JSON tags read journals written before it). Account is the acting
// account's lower-case address. Values are kept as the client sent them (decimal strings) and
// parsed by the machine against the instrument's grid, so validation is
// deterministic and replays the same.
type Command struct {
	Kind    string `json:"k"`
	Account string `json:"a,omitempty"`
	// Replay is the signed request's replay key (perpsauth.ReplayKey.Bytes),
	// journaled so the replay cache can be re-seeded on recovery.
	Replay []byte `json:"r,omitempty"`

	Orders   []OrderReq  `json:"o,omitempty"`
	Modifies []ModifyReq `json:"m,omitempty"`
	OIDs     []uint64    `json:"oids,omitempty"`
	COIDs    []string    `json:"coids,omitempty"`
	IID      uint32      `json:"iid,omitempty"`

	Instrument *InstrumentSpec `json:"inst,omitempty"`
	Proxy      *Proxy          `json:"proxy,omitempty"`
	Amount     string          `json:"amt,omitempty"`
	Price      string          `json:"px,omitempty"`

	Flight     *Flight `json:"fl,omitempty"`
	Mode       string  `json:"mode,omitempty"`
	RetryAfter int64   `json:"retry,omitempty"` // seconds
	On         bool    `json:"on,omitempty"`

	Leverages []LeverageReq `json:"lev,omitempty"` // KLeverage (leverage.go)
	// KAutoCancel (autocancel.go): the deadline (ms, 0 disarms) and the
	// daily trigger limit in force.
	Deadline   int64 `json:"dl,omitempty"`
	DailyLimit int64 `json:"dlim,omitempty"`
	// KSettle (retire.go): the close-only and index windows in force (ms).
	Window      int64 `json:"win,omitempty"`
	IndexWindow int64 `json:"iwin,omitempty"`
	// KMargin (isolated.go): the signed request's timestamp (ms), checked
	// against the command's time after sequencing.
	SigTS int64 `json:"sts,omitempty"`
	// Money out (withdraw.go, transfer.go).
	WID      uint64 `json:"wid,omitempty"`
	Status   string `json:"st,omitempty"`
	Fee      string `json:"fee,omitempty"`
	To       string `json:"to,omitempty"`
	Label    string `json:"lbl,omitempty"`
	Required int64  `json:"req,omitempty"`
	// BlockTime (KWithdraw, KDeposit, KBlock) is the chain's block interval
	// (ms) in force (chain.go); 0 on records written before internal/chain.
	BlockTime int64 `json:"bt,omitempty"`
}

// OrderReq is one createOrders item as sent. P and TIF are nil when absent.
type OrderReq struct {
	IID uint32  `json:"iid"`
	Buy bool    `json:"buy"`
	P   *string `json:"p,omitempty"`
	Qty string  `json:"qty"`
	TIF *string `json:"tif,omitempty"`
	PO  bool    `json:"po,omitempty"`
	RO  bool    `json:"ro,omitempty"`
	C   string  `json:"c,omitempty"`
	TR  bool    `json:"tr,omitempty"` // a trigger (TP/SL) was sent (tpsl.go)
	// The trigger's fields and the request's group (tpsl.go), as sent.
	TrP      string `json:"trp,omitempty"`
	TrKind   string `json:"tpsl,omitempty"`
	TrMarket bool   `json:"trm,omitempty"`
	Grp      string `json:"grp,omitempty"`
	TrSlip   uint64 `json:"slip,omitempty"`   // tr.slip_bps (0: the instrument's default)
	TrParent uint64 `json:"parent,omitempty"` // tr.parent_oid: attach to this resting order
}

// ModifyReq is one modify item: OID or COID, new price and new total qty.
type ModifyReq struct {
	OID  uint64 `json:"oid,omitempty"`
	COID string `json:"coid,omitempty"`
	P    string `json:"p"`
	Qty  string `json:"qty"`
}

// InstrumentSpec is the operator's description of a new instrument.
type InstrumentSpec struct {
	Symbol        string `json:"symbol"`
	Base          string `json:"base_asset,omitempty"`
	Category      string `json:"category"`
	PriceDecimals uint8  `json:"price_decimals"`
	QtyDecimals   uint8  `json:"quantity_decimals"`
	MaxLeverage   int64  `json:"max_leverage"`
	MinNotional   string `json:"min_notional"`
	// MaxPrice bounds order prices (the book's grid; memory grows with
	// MaxPrice×10^price_decimals). Default 100,000, capped by book.MaxTicks.
	MaxPrice string `json:"max_price,omitempty"`
}

// Ack is one createOrders acknowledgement.
type Ack struct {
	Status string `json:"status"`
	OID    uint64 `json:"oid,omitempty"`
	COID   string `json:"coid,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ItemResult is one modify or cancel result.
type ItemResult struct {
	Status string     `json:"status"`
	OID    uint64     `json:"oid,omitempty"`
	COID   string     `json:"coid,omitempty"`
	Order  *OrderWire `json:"order,omitempty"`
	Error  string     `json:"error,omitempty"`
	Due    int64      `json:"-"` // StatusHeld: when the accept (or the pending modify) completes
	Mod    uint64     `json:"-"` // StatusHeld of a modify: the pending modify's id (ModifyOutcome)
	CC     uint64     `json:"-"` // StatusHeld of a cancel-by-coid awaiting its create (COIDCancelOutcome)
}

// Event is the outcome of one command: the reply for the submitter (Err for
// a refused non-batch command, else Acks or Items) and the order and fill
// updates for subscribers.
type Event struct {
	Err    string
	Acks   []Ack
	Items  []ItemResult
	ID     uint64 // created instrument id / deposit id
	Orders []OrderWire
	Fills  []AccountFill
	Trades []PublicTrade // public tape of this command
	BBOs   []BBO         // instruments whose levels changed (timestamp = command ts)
	Replay []byte
	// RetryAfter (seconds) accompanies Err cancel_only_mode / post_only_mode.
	RetryAfter int64
	// Leverage is KLeverage's per-item results (leverage.go).
	Leverage []LeverageResult
	// Deadline is KAutoCancel's deadline in force (0: disarmed).
	Deadline int64
	// Funding is KFunding's charges, for the private funding channel.
	Funding []AccountFunding
	// Money out: withdrawals whose state changed, accounts whose balance a
	// transfer changed (withdraw.go, transfer.go).
	Withdrawals []Withdrawal
	Deposits    []DepositUpdate
	Balances    []AccountBalance
}

// AccountFunding is a funding charge addressed to one account.
type AccountFunding struct {
	Account string
	Charge  FundingData
}

// AccountFill is a fill update addressed to one account.
type AccountFill struct {
	Account string
	Fill    FillWire
}
