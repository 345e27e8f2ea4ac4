package clob

import (
	"fmt"
	"strings"
)

// Code identifies one entry of the CLOB error catalogue (interface.md "CLOB
// errors"). The catalogue is the only place a message is spelled; clobhttp
// maps an *Error to a response in one function.
type Code uint16

// The catalogue's identifiers, in the contract table's order.
const (
	_ Code = iota
	ErrInvalidL1
	ErrUnauthorized
	ErrTradingDisabled
	ErrTooManyRequests
	ErrInvalidTokenID
	ErrNoOrderbook
	ErrInvalidPayload
	ErrPayloadLimit
	ErrInvalidSide
	ErrInvalidOrderPayload
	ErrOwnerMismatch
	ErrSignerMismatch
	ErrAddressBanned
	ErrClosedOnly
	ErrCancelOnly
	ErrPostOnlyMode
	ErrTooManyOrders
	ErrPostOnlyCrosses
	ErrTickSize
	ErrMinSize
	ErrDuplicated
	ErrCrossesBook
	ErrNotEnoughBalance
	ErrInvalidExpiration
	ErrNonceCanceled
	ErrMatchDelayed
	ErrFOKUnfilled
	ErrFAKNoMatch
	ErrMarketNotReady
	ErrOrderTimedOut
	ErrTooEarly
	ErrNoMatchingOrders
	ErrFOKKilled
	ErrRounding
	ErrTakerPrice
	ErrInvalidOrderID
	ErrTooManyCancels
	ErrOrderNotFound
	ErrInvalidOrderParams
	ErrInvalidTradeParams
	ErrInternal
	ErrInvalidMarket
	ErrMarketNotFound
	ErrHistoryFilter
	ErrOhlcStartTs
	ErrOhlcAssetID
	ErrOhlcFidelity
	ErrOhlcLimit
	ErrCreateAPIKey
	ErrDeriveAPIKey
	ErrRetrieveAPIKeys
	ErrDeleteAPIKey
	ErrBuilderCreate
	ErrBuilderGet
	ErrBuilderRevokeBody
	ErrBuilderRevokeHeaders
	ErrBuilderRevoke
	ErrBuilderTradeParams
	ErrBuilderTrades
	ErrInvalidAssetType
	ErrInvalidSignatureType
	ErrNotFound
	ErrContextCanceled
	// pmx's operator entries (resolution and redemption; docs/clob.md).
	ErrMarketResolved
	ErrMarketNotResolved
	ErrInvalidPayouts
	ErrNothingToRedeem
	ErrInvalidTickSize
	numCodes
)

// Entry is one row of the catalogue: the HTTP status the route answers and
// the message (a fmt format where the row names a value).
type Entry struct {
	Status int
	Msg    string
}

// Catalogue is the table itself, indexed by Code. Statuses are the
// contract's; the override rule (StatusOf) is applied when writing.
var Catalogue = [numCodes]Entry{
	ErrInvalidL1:            {401, "Invalid L1 Request headers"},
	ErrUnauthorized:         {401, "Unauthorized/Invalid api key"},
	ErrTradingDisabled:      {503, "Trading is currently disabled"},
	ErrTooManyRequests:      {429, "Too Many Requests"},
	ErrInvalidTokenID:       {400, "Invalid token id"},
	ErrNoOrderbook:          {404, "No orderbook exists for the requested token id"},
	ErrInvalidPayload:       {400, "Invalid payload"},
	ErrPayloadLimit:         {400, "Payload exceeds the limit"},
	ErrInvalidSide:          {400, "Invalid side"},
	ErrInvalidOrderPayload:  {400, "Invalid order payload"},
	ErrOwnerMismatch:        {400, "the order owner has to be the owner of the API KEY"},
	ErrSignerMismatch:       {400, "the order signer address has to be the address of the API KEY"},
	ErrAddressBanned:        {400, "'%s' address banned"},
	ErrClosedOnly:           {400, "'%s' address in closed only mode"},
	ErrCancelOnly:           {503, "Trading is currently cancel-only. New orders are not accepted, but cancels are allowed."},
	ErrPostOnlyMode:         {503, "Trading is currently post-only. Only post-only orders and cancels are allowed."},
	ErrTooManyOrders:        {400, "Too many orders in payload: %d, max allowed: %d"},
	ErrPostOnlyCrosses:      {400, "invalid post-only order: order crosses book"},
	ErrTickSize:             {400, "order %s is invalid. Price (%s) breaks minimum tick size rule: %s"},
	ErrMinSize:              {400, "order %s is invalid. Size (%s) lower than the minimum: %s"},
	ErrDuplicated:           {400, "order %s is invalid. Duplicated."},
	ErrCrossesBook:          {400, "order %s crosses the book"},
	ErrNotEnoughBalance:     {400, "not enough balance / allowance"},
	ErrInvalidExpiration:    {400, "invalid expiration"},
	ErrNonceCanceled:        {400, "order canceled in the CTF exchange contract"},
	ErrMatchDelayed:         {400, "order match delayed due to market conditions"},
	ErrFOKUnfilled:          {400, "order couldn't be fully filled. FOK orders are fully filled or killed."},
	ErrFAKNoMatch:           {400, "no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found."},
	ErrMarketNotReady:       {400, "the market is not yet ready to process new orders"},
	ErrOrderTimedOut:        {500, "order timed out"},
	ErrTooEarly:             {425, "Too Early: the matching engine is restarting, retry with exponential backoff"},
	ErrNoMatchingOrders:     {500, "there are no matching orders"},
	ErrFOKKilled:            {500, "FOK orders are filled or killed"},
	ErrRounding:             {500, "trade contains rounding issues"},
	ErrTakerPrice:           {500, "taker price discrepancy greater than allowed against the worst maker order"},
	ErrInvalidOrderID:       {400, "Invalid orderID"},
	ErrTooManyCancels:       {400, "Too many orders in payload, max allowed: %d"},
	ErrOrderNotFound:        {404, "Order not found"},
	ErrInvalidOrderParams:   {400, "invalid order params payload"},
	ErrInvalidTradeParams:   {400, "Invalid trade params payload"},
	ErrInternal:             {500, "Internal server error"},
	ErrInvalidMarket:        {400, "Invalid market"},
	ErrMarketNotFound:       {404, "market not found"},
	ErrHistoryFilter:        {400, "filter validation error: invalid %s"},
	ErrOhlcStartTs:          {400, "startTs is required"},
	ErrOhlcAssetID:          {400, "asset_id is required"},
	ErrOhlcFidelity:         {400, "invalid fidelity (must be one of 1m, 5m, 15m, 30m, 1h, 4h, 1d, 1w)"},
	ErrOhlcLimit:            {400, "limit cannot exceed 1000"},
	ErrCreateAPIKey:         {400, "Could not create api key"},
	ErrDeriveAPIKey:         {400, "Could not derive api key"},
	ErrRetrieveAPIKeys:      {500, "Could not retrieve API keys"},
	ErrDeleteAPIKey:         {500, "Could not delete API key"},
	ErrBuilderCreate:        {500, "could not create builder api key"},
	ErrBuilderGet:           {500, "could not get builder api keys"},
	ErrBuilderRevokeBody:    {400, "invalid revoke body"},
	ErrBuilderRevokeHeaders: {400, "invalid revoke headers"},
	ErrBuilderRevoke:        {500, "could not revoke the builder api key"},
	ErrBuilderTradeParams:   {400, "invalid builder trade params"},
	ErrBuilderTrades:        {500, "could not fetch builder trades"},
	ErrInvalidAssetType:     {400, "Invalid asset type"},
	ErrInvalidSignatureType: {400, "Invalid signature_type (must be 0, 1, 2 or 3)"},
	ErrNotFound:             {404, "not found"},
	ErrContextCanceled:      {400, "context canceled"},
	ErrMarketResolved:       {409, "market already resolved"},
	ErrMarketNotResolved:    {409, "market not resolved"},
	ErrInvalidPayouts:       {400, "invalid payouts: one per outcome, each in [0,1], summing to 1"},
	ErrNothingToRedeem:      {400, "nothing to redeem: the address holds no position in this market"},
	ErrInvalidTickSize:      {400, "invalid tick size: must be 0.1, 0.01, 0.001 or 0.0001"},
}

// Codes returns every defined code (for the catalogue's tests).
func Codes() []Code {
	out := make([]Code, 0, numCodes-1)
	for c := Code(1); c < numCodes; c++ {
		out = append(out, c)
	}
	return out
}

// Error is a catalogue error with its arguments applied. RetryAfter (seconds)
// and Tag (the body's "code") are set by the modes that carry them.
type Error struct {
	Code       Code
	Msg        string
	RetryAfter int64
	Tag        string
}

func (e *Error) Error() string { return e.Msg }

// Status is the entry's status after the contract's override rule.
func (e *Error) Status() int { return StatusOf(Catalogue[e.Code].Status, e.Msg) }

// E builds the error of code with the row's format arguments.
func E(c Code, args ...any) *Error {
	msg := Catalogue[c].Msg
	if len(args) > 0 {
		msg = fmt.Sprintf(msg, args...)
	}
	return &Error{Code: c, Msg: msg}
}

// StatusOf applies the contract's override to any message: one containing
// "not found" is 404, "unauthorized" 401, "context canceled" 400; otherwise
// the route's status stands. Matching ignores case, because production's own
// "Unauthorized/Invalid api key" is capitalised and is a 401.
func StatusOf(status int, msg string) int {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "not found"):
		return 404
	case strings.Contains(m, "unauthorized"):
		return 401
	case strings.Contains(m, "context canceled"):
		return 400
	}
	return status
}
