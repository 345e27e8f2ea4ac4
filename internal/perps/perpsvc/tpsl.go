package perpsvc

import (
	"strconv"

	"pmx/internal/perps/perps"
)

// tpslPush is a private tpsl push (perps.md §7: {oid, st}); it goes out as
// ch "tpsl::<iid>" to the account's sessions subscribed to "tpsl".
type tpslPush struct {
	OID uint64 `json:"oid"`
	St  string `json:"st"`
}

// sendTPSL pushes leg o's lifecycle change on tpsl; buf is scratch space.
func (s *Service) sendTPSL(buf []*Session, o *perps.OrderWire, ets int64) []*Session {
	buf = s.hub.subscribers(buf[:0], indexKey("tpsl", o.Account))
	if len(buf) == 0 {
		return buf
	}
	b := marshal(tpslPush{OID: o.OID, St: o.Status})
	ch, ts := "tpsl::"+strconv.FormatUint(uint64(o.IID), 10), s.now().UnixMilli()
	for _, c := range buf {
		c.pushAs(ch, "tpsl", o.Account, ts, ets, b)
	}
	clear(buf)
	return buf
}
