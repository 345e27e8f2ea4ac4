package ledger

import "fmt"

// field decodes the value of key into e and reports which field it was.
// Keep in step with Event's json tags (TestScanCoversEveryField).
func (s *scanner) field(key []byte, e *Event) (f field, err error) {
	str := func(dst *string, bit field, name string) {
		*dst, err = s.text(name)
		f = bit
	}
	i64 := func(dst *int64, bit field, name string) {
		*dst, err = s.int(name)
		f = bit
	}
	flag := func(dst *bool, bit field, name string) {
		*dst, _, err = s.boolean(name)
		f = bit
	}
	ptr := func(dst **bool, bit field, name string) {
		v, isNull, e := s.boolean(name)
		if err = e; err == nil && !isNull {
			*dst = &v
		}
		f = bit
	}
	switch string(key) {
	case "tx_hash":
		str(&e.TxHash, fTxHash, "tx_hash")
	case "log_index":
		i64(&e.LogIndex, fLogIndex, "log_index")
	case "block_number":
		i64(&e.BlockNumber, fBlockNumber, "block_number")
	case "timestamp":
		i64(&e.Timestamp, fTimestamp, "timestamp")
	case "condition_id":
		str(&e.ConditionID, fConditionID, "condition_id")
	case "question":
		str(&e.Question, fQuestion, "question")
	case "slug":
		str(&e.Slug, fSlug, "slug")
	case "event_id":
		i64(&e.EventID, fEventID, "event_id")
	case "event_slug":
		str(&e.EventSlug, fEventSlug, "event_slug")
	case "event_title":
		str(&e.EventTitle, fEventTitle, "event_title")
	case "category":
		str(&e.Category, fCategory, "category")
	case "outcomes":
		e.Outcomes, err = s.strs("outcomes")
		f = fOutcomes
	case "token_ids":
		e.TokenIDs, err = s.strs("token_ids")
		f = fTokenIDs
	case "neg_risk":
		flag(&e.NegRisk, fNegRisk, "neg_risk")
	case "end_date":
		str(&e.EndDate, fEndDate, "end_date")
	case "icon":
		str(&e.Icon, fIcon, "icon")
	case "active":
		ptr(&e.Active, fActive, "active")
	case "closed":
		ptr(&e.Closed, fClosed, "closed")
	case "archived":
		ptr(&e.Archived, fArchived, "archived")
	case "market_id":
		i64(&e.MarketID, fMarketID, "market_id")
	case "token_id":
		str(&e.TokenID, fTokenID, "token_id")
	case "maker":
		str(&e.Maker, fMaker, "maker")
	case "taker":
		str(&e.Taker, fTaker, "taker")
	case "side":
		f = fSide
		if s.null() {
			break
		}
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return f, s.typeErr("side", "string")
		}
		var b []byte
		b, err = s.strBytes()
		e.Side = string(intern(b))
	case "price":
		e.Price, err = s.micro("price")
		f = fPrice
	case "size":
		e.Size, err = s.micro("size")
		f = fSize
	case "fee_usdc":
		e.FeeUSDC, err = s.micro("fee_usdc")
		f = fFeeUSDC
	case "builder_code":
		str(&e.BuilderCode, fBuilderCode, "builder_code")
	case "user":
		str(&e.User, fUser, "user")
	case "amount":
		e.Amount, err = s.micro("amount")
		f = fAmount
	case "amount_usdc":
		e.AmountUSDC, err = s.micro("amount_usdc")
		f = fAmountUSDC
	case "condition_ids":
		e.ConditionIDs, err = s.strs("condition_ids")
		f = fConditionIDs
	case "from":
		str(&e.From, fFrom, "from")
	case "to":
		str(&e.To, fTo, "to")
	case "payouts":
		e.Payouts, err = s.micros("payouts")
		f = fPayouts
	case "resolved_at":
		i64(&e.ResolvedAt, fResolvedAt, "resolved_at")
	case "address":
		str(&e.Address, fAddress, "address")
	case "name":
		str(&e.Name, fName, "name")
	case "pseudonym":
		str(&e.Pseudonym, fPseudonym, "pseudonym")
	case "bio":
		str(&e.Bio, fBio, "bio")
	case "profile_image":
		str(&e.ProfileImage, fProfileImage, "profile_image")
	case "verified":
		flag(&e.Verified, fVerified, "verified")
	case "joined_at":
		i64(&e.JoinedAt, fJoinedAt, "joined_at")
	case "views":
		i64(&e.Views, fViews, "views")
	case "code":
		str(&e.Code, fCode, "code")
	case "combo_condition_id":
		str(&e.ComboConditionID, fComboConditionID, "combo_condition_id")
	case "legs":
		e.Legs, err = s.legs()
		f = fLegs
	case "outcome_index":
		var v int64
		i64(&v, fOutcomeIndex, "outcome_index")
		e.OutcomeIndex = int(v)
	case "type":
		str(&e.Type, fType, "type")
	case "payout_usdc":
		e.PayoutUSDC, err = s.micro("payout_usdc")
		f = fPayoutUSDC
	default:
		return 0, fmt.Errorf("unknown field %q", key)
	}
	return f, err
}
