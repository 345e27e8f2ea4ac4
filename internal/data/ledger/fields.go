package ledger

import "math/bits"

// field is one bit per Event field, so each kind can state which fields it
// uses; a non-zero field outside that set is a mistake in the producer.
type field uint64

const (
	fTxHash field = 1 << iota
	fLogIndex
	fBlockNumber
	fTimestamp
	fConditionID
	fQuestion
	fSlug
	fEventID
	fEventSlug
	fEventTitle
	fCategory
	fOutcomes
	fTokenIDs
	fNegRisk
	fEndDate
	fIcon
	fActive
	fClosed
	fArchived
	fMarketID
	fTokenID
	fMaker
	fTaker
	fSide
	fPrice
	fSize
	fFeeUSDC
	fBuilderCode
	fUser
	fAmount
	fAmountUSDC
	fConditionIDs
	fFrom
	fTo
	fPayouts
	fResolvedAt
	fAddress
	fName
	fPseudonym
	fBio
	fProfileImage
	fVerified
	fJoinedAt
	fViews
	fCode
	fComboConditionID
	fLegs
	fOutcomeIndex
	fType
	fPayoutUSDC
	fieldCount = iota
)

// fieldNames are the JSON names, in bit order.
var fieldNames = [fieldCount]string{
	"tx_hash", "log_index", "block_number", "timestamp", "condition_id", "question", "slug", "event_id",
	"event_slug", "event_title", "category", "outcomes", "token_ids", "neg_risk", "end_date", "icon",
	"active", "closed", "archived", "market_id", "token_id", "maker", "taker", "side", "price", "size",
	"fee_usdc", "builder_code", "user", "amount", "amount_usdc", "condition_ids", "from", "to", "payouts",
	"resolved_at", "address", "name", "pseudonym", "bio", "profile_image", "verified", "joined_at", "views",
	"code", "combo_condition_id", "legs", "outcome_index", "type", "payout_usdc",
}

const envelope = fTxHash | fLogIndex | fBlockNumber | fTimestamp

// allowed is the set of fields each kind may carry.
var allowed = map[Kind]field{
	KindMarket: fConditionID | fQuestion | fSlug | fEventID | fEventSlug | fEventTitle | fCategory |
		fOutcomes | fTokenIDs | fNegRisk | fEndDate | fIcon | fActive | fClosed | fArchived | fMarketID,
	KindTrade:          envelope | fTokenID | fMaker | fTaker | fSide | fPrice | fSize | fFeeUSDC | fBuilderCode,
	KindSplit:          envelope | fUser | fConditionID | fAmount,
	KindMerge:          envelope | fUser | fConditionID | fAmount,
	KindRedeem:         envelope | fUser | fConditionID,
	KindConversion:     envelope | fUser | fConditionIDs | fAmount | fAmountUSDC,
	KindMigration:      envelope | fUser | fAmountUSDC,
	KindReward:         envelope | fUser | fAmountUSDC,
	KindYield:          envelope | fUser | fAmountUSDC,
	KindMakerRebate:    envelope | fUser | fAmountUSDC,
	KindTakerRebate:    envelope | fUser | fAmountUSDC,
	KindReferralReward: envelope | fUser | fAmountUSDC,
	KindDeposit:        envelope | fUser | fAmountUSDC,
	KindWithdrawal:     envelope | fUser | fAmountUSDC,
	KindTip:            envelope | fFrom | fTo | fAmountUSDC,
	KindResolution:     fConditionID | fPayouts | fResolvedAt,
	KindProfile:        fAddress | fName | fPseudonym | fBio | fProfileImage | fVerified | fJoinedAt | fViews,
	KindBuilder:        fCode | fName | fProfileImage | fVerified,
	KindComboMarket:    fComboConditionID | fQuestion | fOutcomes | fTokenIDs | fLegs,
	KindComboTrade: envelope | fUser | fComboConditionID | fOutcomeIndex | fSide | fPrice | fSize |
		fFeeUSDC | fBuilderCode,
	KindComboActivity: envelope | fUser | fComboConditionID | fOutcomeIndex | fType | fSize | fAmountUSDC |
		fPayoutUSDC,
}

// present returns the set of fields of e that are not their zero value.
func present(e *Event) field {
	var m field
	set := func(f field, ok bool) {
		if ok {
			m |= f
		}
	}
	set(fTxHash, e.TxHash != "")
	set(fLogIndex, e.LogIndex != 0)
	set(fBlockNumber, e.BlockNumber != 0)
	set(fTimestamp, e.Timestamp != 0)
	set(fConditionID, e.ConditionID != "")
	set(fQuestion, e.Question != "")
	set(fSlug, e.Slug != "")
	set(fEventID, e.EventID != 0)
	set(fEventSlug, e.EventSlug != "")
	set(fEventTitle, e.EventTitle != "")
	set(fCategory, e.Category != "")
	set(fOutcomes, e.Outcomes != nil)
	set(fTokenIDs, e.TokenIDs != nil)
	set(fNegRisk, e.NegRisk)
	set(fEndDate, e.EndDate != "")
	set(fIcon, e.Icon != "")
	set(fActive, e.Active != nil)
	set(fClosed, e.Closed != nil)
	set(fArchived, e.Archived != nil)
	set(fMarketID, e.MarketID != 0)
	set(fTokenID, e.TokenID != "")
	set(fMaker, e.Maker != "")
	set(fTaker, e.Taker != "")
	set(fSide, e.Side != "")
	set(fPrice, e.Price != 0)
	set(fSize, e.Size != 0)
	set(fFeeUSDC, e.FeeUSDC != 0)
	set(fBuilderCode, e.BuilderCode != "")
	set(fUser, e.User != "")
	set(fAmount, e.Amount != 0)
	set(fAmountUSDC, e.AmountUSDC != 0)
	set(fConditionIDs, e.ConditionIDs != nil)
	set(fFrom, e.From != "")
	set(fTo, e.To != "")
	set(fPayouts, e.Payouts != nil)
	set(fResolvedAt, e.ResolvedAt != 0)
	set(fAddress, e.Address != "")
	set(fName, e.Name != "")
	set(fPseudonym, e.Pseudonym != "")
	set(fBio, e.Bio != "")
	set(fProfileImage, e.ProfileImage != "")
	set(fVerified, e.Verified)
	set(fJoinedAt, e.JoinedAt != 0)
	set(fViews, e.Views != 0)
	set(fCode, e.Code != "")
	set(fComboConditionID, e.ComboConditionID != "")
	set(fLegs, e.Legs != nil)
	set(fOutcomeIndex, e.OutcomeIndex != 0)
	set(fType, e.Type != "")
	set(fPayoutUSDC, e.PayoutUSDC != 0)
	return m
}

// firstName is the JSON name of the lowest bit set in m.
func firstName(m field) string { return fieldNames[bits.TrailingZeros64(uint64(m))] }
