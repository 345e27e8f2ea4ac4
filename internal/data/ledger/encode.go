package ledger

import (
	"bufio"
	"io"
	"strconv"

	"pmx/internal/amount"
	"pmx/internal/jsonstr"
)

// Encoder writes events as NDJSON, one line each, in the form Decoder reads:
// fields in struct order, zero values omitted (except log_index on chain
// kinds and outcome_index on combo trades and activity, which are meaningful
// at 0), amounts as decimal strings. It does not validate.
type Encoder struct {
	w   *bufio.Writer
	buf []byte
}

// NewEncoder returns an Encoder writing to w. Call Flush when done.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: bufio.NewWriterSize(w, 1<<20), buf: make([]byte, 0, 1024)}
}

// Encode writes e and a newline.
func (enc *Encoder) Encode(e *Event) error {
	enc.buf = AppendEvent(enc.buf[:0], e)
	enc.buf = append(enc.buf, '\n')
	_, err := enc.w.Write(enc.buf)
	return err
}

// Flush writes any buffered data to the underlying writer.
func (enc *Encoder) Flush() error { return enc.w.Flush() }

// AppendEvent appends e's JSON object (no newline) to b.
func AppendEvent(b []byte, e *Event) []byte {
	w := objWriter{b: append(b, '{')}
	w.str("kind", string(e.Kind), true)
	if e.Kind.Onchain() {
		w.str("tx_hash", e.TxHash, false)
		w.int("log_index", e.LogIndex, true)
		w.int("block_number", e.BlockNumber, false)
		w.int("timestamp", e.Timestamp, false)
	}
	w.str("condition_id", e.ConditionID, false)
	w.str("question", e.Question, false)
	w.str("slug", e.Slug, false)
	w.int("event_id", e.EventID, false)
	w.str("event_slug", e.EventSlug, false)
	w.str("event_title", e.EventTitle, false)
	w.str("category", e.Category, false)
	w.strs("outcomes", e.Outcomes)
	w.strs("token_ids", e.TokenIDs)
	w.boolean("neg_risk", e.NegRisk)
	w.str("end_date", e.EndDate, false)
	w.str("icon", e.Icon, false)
	w.ptr("active", e.Active)
	w.ptr("closed", e.Closed)
	w.ptr("archived", e.Archived)
	w.int("market_id", e.MarketID, false)
	w.str("token_id", e.TokenID, false)
	w.str("maker", e.Maker, false)
	w.str("taker", e.Taker, false)
	w.str("side", e.Side, false)
	w.micro("price", e.Price)
	w.micro("size", e.Size)
	w.micro("fee_usdc", e.FeeUSDC)
	w.str("builder_code", e.BuilderCode, false)
	w.str("user", e.User, false)
	w.micro("amount", e.Amount)
	w.micro("amount_usdc", e.AmountUSDC)
	w.strs("condition_ids", e.ConditionIDs)
	w.str("from", e.From, false)
	w.str("to", e.To, false)
	if e.Payouts != nil {
		w.key("payouts")
		w.b = append(w.b, '[')
		for i, p := range e.Payouts {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, '"')
			w.b = p.Append(w.b)
			w.b = append(w.b, '"')
		}
		w.b = append(w.b, ']')
	}
	w.int("resolved_at", e.ResolvedAt, false)
	w.str("address", e.Address, false)
	w.str("name", e.Name, false)
	w.str("pseudonym", e.Pseudonym, false)
	w.str("bio", e.Bio, false)
	w.str("profile_image", e.ProfileImage, false)
	w.boolean("verified", e.Verified)
	w.int("joined_at", e.JoinedAt, false)
	w.int("views", e.Views, false)
	w.str("code", e.Code, false)
	w.str("combo_condition_id", e.ComboConditionID, false)
	if e.Legs != nil {
		w.key("legs")
		w.b = append(w.b, '[')
		for i, l := range e.Legs {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, `{"condition_id":`...)
			w.b = jsonstr.Append(w.b, l.ConditionID)
			w.b = append(w.b, `,"outcome_index":`...)
			w.b = strconv.AppendInt(w.b, int64(l.OutcomeIndex), 10)
			w.b = append(w.b, '}')
		}
		w.b = append(w.b, ']')
	}
	combo := e.Kind == KindComboTrade || e.Kind == KindComboActivity
	w.int("outcome_index", int64(e.OutcomeIndex), combo)
	w.str("type", e.Type, false)
	w.micro("payout_usdc", e.PayoutUSDC)
	return append(w.b, '}')
}

// objWriter appends "key":value pairs with commas between them.
type objWriter struct {
	b []byte
	n int
}

func (w *objWriter) key(k string) {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *objWriter) str(k, v string, always bool) {
	if v == "" && !always {
		return
	}
	w.key(k)
	w.b = jsonstr.Append(w.b, v)
}

func (w *objWriter) strs(k string, v []string) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = append(w.b, '[')
	for i, s := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsonstr.Append(w.b, s)
	}
	w.b = append(w.b, ']')
}

func (w *objWriter) int(k string, v int64, always bool) {
	if v == 0 && !always {
		return
	}
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *objWriter) micro(k string, v amount.Micro) {
	if v == 0 {
		return
	}
	w.key(k)
	w.b = append(w.b, '"')
	w.b = v.Append(w.b)
	w.b = append(w.b, '"')
}

func (w *objWriter) boolean(k string, v bool) {
	if v {
		w.key(k)
		w.b = append(w.b, "true"...)
	}
}

func (w *objWriter) ptr(k string, v *bool) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = strconv.AppendBool(w.b, *v)
}
