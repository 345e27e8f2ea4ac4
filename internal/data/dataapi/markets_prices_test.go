package dataapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"pmx/internal/amount"
	"pmx/internal/data/ledger"
)

type pricesPage struct {
	Data []struct {
		Timestamp         int64        `json:"timestamp"`
		Price             amount.Micro `json:"price"`
		ResolutionSeconds int64        `json:"resolution_seconds"`
	} `json:"data"`
	Pagination mPagination `json:"pagination"`
}

// series renders points as "+dt:price/res" relative to mT0.
func (p pricesPage) series() string {
	var out []string
	for _, r := range p.Data {
		out = append(out, fmt.Sprintf("+%d:%s/%d", r.Timestamp-mT0, r.Price, r.ResolutionSeconds))
	}
	return strings.Join(out, " ")
}

func TestPricesHistoryExact(t *testing.T) {
	h := newMHarness(t, handEvs)
	s := fmt.Sprint(mT0)
	cases := []struct{ name, query, want string }{
		// Token 11's ticks: 0.60 at +70, the complement's 0.45 at +100 (so
		// 0.55), 0.70 at +200. A bucket serves its last tick; the terminal
		// point is the newest tick at its own time.
		{"minute grid", "token_id=11&start=" + s + "&bucket_seconds=60", "+60:0.55/60 +180:0.7/60 +200:0.7/0"},
		{"complement", "tokenId=12&start=" + s + "&bucketSeconds=60", "+60:0.45/60 +180:0.3/60 +200:0.3/0"},
		{"explicit end excludes", "token_id=11&start=" + s + "&end=" + fmt.Sprint(mT0+200) + "&bucket_seconds=60",
			"+60:0.55/60 +100:0.55/0"},
		{"auto grain", "token_id=11&start=" + s, "+0:0.7/300 +200:0.7/0"}, // > 12 h to now: 300 s
		{"auto grain 1h", "token_id=11&start=" + s + "&end=" + fmt.Sprint(mT0+3600), "+60:0.55/60 +180:0.7/60 +200:0.7/0"},
		{"interval 1d", "token_id=11&interval=1d", "+60:0.55/60 +180:0.7/60 +200:0.7/0"},
		{"interval 1w", "token_id=11&interval=1w", "+0:0.7/300 +200:0.7/0"},
		{"interval floors bucket", "token_id=11&interval=1w&bucket_seconds=60", "+0:0.7/300 +200:0.7/0"},
		{"interval 1h misses", "token_id=11&interval=1h", ""},
		{"interval max", "token_id=11&interval=max", "+-14400:0.7/43200 +200:0.7/0"}, // 12-hour grid from the epoch
		{"as_of", "token_id=11&as_of=" + fmt.Sprint(mT0+150), "+100:0.55/0"},
		{"as_of inclusive", "token_id=11&asOf=" + fmt.Sprint(mT0+200), "+200:0.7/0"},
		{"as_of before history", "token_id=11&as_of=" + fmt.Sprint(mT0+5), ""},
		// Resolved Yes at +500: the settlement point is one bucket edge past
		// the last bucket, clamped to an explicit end.
		{"settlement", "token_id=21&start=" + s + "&bucket_seconds=60", "+360:0.3/60 +400:0.3/0 +420:1/0"},
		{"settlement loser", "token_id=22&start=" + s + "&bucket_seconds=60", "+360:0.7/60 +400:0.7/0 +420:0/0"},
		{"settlement clamped", "token_id=21&start=" + s + "&end=" + fmt.Sprint(mT0+550) + "&bucket_seconds=300",
			"+300:0.3/300 +400:0.3/0 +550:1/0"},
		{"before settlement", "token_id=21&start=" + s + "&end=" + fmt.Sprint(mT0+450) + "&bucket_seconds=60",
			"+360:0.3/60 +400:0.3/0"},
		// Three outcomes: no complement rule.
		{"three outcomes", "token_id=31&start=" + s + "&bucket_seconds=600", "+600:0.5/600 +800:0.5/0"},
		{"other outcome", "token_id=32&start=" + s, ""},
		{"unknown token", "token_id=777&start=" + s, ""},
		{"leading zeros", "token_id=0011&interval=1d", "+60:0.55/60 +180:0.7/60 +200:0.7/0"},
		// The 15-day cap clamps an early start (history is younger).
		{"early start clamped", "token_id=11&start=1&bucket_seconds=60", "+60:0.55/60 +180:0.7/60 +200:0.7/0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p pricesPage
			h.ok("/v2/prices-history?"+c.query, &p)
			if got := p.series(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if p.Pagination.Limit != 10000 || p.Pagination.HasMore {
				t.Errorf("pagination %+v", p.Pagination)
			}
		})
	}
}

func TestPricesHistoryWalk(t *testing.T) {
	h := newMHarness(t, handEvs)
	base := "/v2/prices-history?token_id=21&bucket_seconds=60&start=" + fmt.Sprint(mT0)
	var got []string
	var p pricesPage
	h.ok(base+"&limit=1", &p)
	for i := 0; ; i++ {
		if p.Pagination.Offset != i || p.Pagination.Limit != 1 || len(p.Data) != 1 {
			t.Fatalf("page %d: %+v", i, p)
		}
		got = append(got, p.series())
		if p.Pagination.NextCursor == nil {
			break
		}
		cur := *p.Pagination.NextCursor
		p = pricesPage{}
		h.ok(base+"&limit=7&cursor="+url.QueryEscape(cur), &p)
	}
	if strings.Join(got, " ") != "+360:0.3/60 +400:0.3/0 +420:1/0" {
		t.Errorf("walk %v", got)
	}
	var all pricesPage
	h.ok(base+"&limit=2", &all)
	if all.series() != "+360:0.3/60 +400:0.3/0" || all.Pagination.NextCursor == nil {
		t.Errorf("limit 2: %s %+v", all.series(), all.Pagination)
	}
}

func TestPricesHistoryRejects(t *testing.T) {
	h := newMHarness(t, handEvs)
	s := fmt.Sprint(mT0)
	cases := []struct{ query, param, msg string }{
		{"start=" + s, "token_id", "required query param 'token_id' not provided"},
		{"token_id=abc&start=" + s, "token_id", "invalid token id: abc"},
		{"token_id=11", "", "provide one of 'start', 'interval' or 'as_of'"},
		{"token_id=11&start=0", "start", "start must be a positive epoch second"},
		{"token_id=11&start=" + s + "&end=0", "end", "end must be a positive epoch second"},
		{"token_id=11&as_of=0", "as_of", "as_of must be a positive epoch second"},
		{"token_id=11&start=-5", "start", "start must be a positive epoch second"},
		{"token_id=11&start=x", "start", "start must be an integer: x"},
		{"token_id=11&end=" + s, "end", "end requires start"},
		{"token_id=11&start=" + s + "&end=" + s, "end", "end must be after start"},
		{"token_id=11&start=" + s + "&interval=1d", "", "'start', 'interval' and 'as_of' are mutually exclusive"},
		{"token_id=11&as_of=" + s + "&interval=1d", "", "'start', 'interval' and 'as_of' are mutually exclusive"},
		{"token_id=11&as_of=" + s + "&bucket_seconds=60", "bucket_seconds", "bucket_seconds does not apply to as_of"},
		{"token_id=11&interval=", "interval", "interval must be one of max, all, 1m, 1w, 1d, 6h, 1h"},
		{"token_id=11&interval=1M", "interval", "interval must be one of max, all, 1m, 1w, 1d, 6h, 1h"},
		{"token_id=11&interval=12h", "interval", "interval must be one of max, all, 1m, 1w, 1d, 6h, 1h"},
		{"token_id=11&interval=1d&bucket_seconds=59", "bucket_seconds", "bucket_seconds must be between 60 and 86400"},
		{"token_id=11&interval=1d&bucket_seconds=86401", "bucket_seconds", "bucket_seconds must be between 60 and 86400"},
		{"token_id=11&interval=1d&limit=10001", "limit", "limit must be at most 10000"},
		{"token_id=11&interval=1d&cursor=abc", "cursor", "invalid cursor"},
		{"token_id=11&interval=1d&offset=2", "offset", ""},
	}
	for _, c := range cases {
		e := h.bad("/v2/prices-history?" + c.query)
		param := ""
		if e.Parameter != nil {
			param = *e.Parameter
		}
		if param != c.param || (c.msg != "" && e.Error != c.msg) {
			t.Errorf("%s: %q (param %q)", c.query, e.Error, param)
		}
	}
}

// TestPricesHistorySeesNewFills: a fill applied after a series was served
// (and cached) shows up on the next request.
func TestPricesHistorySeesNewFills(t *testing.T) {
	h := newMHarness(t, handEvs)
	q := "/v2/prices-history?token_id=12&bucket_seconds=60&start=" + fmt.Sprint(mT0)
	var p pricesPage
	h.ok(q, &p)
	if p.series() != "+60:0.45/60 +180:0.3/60 +200:0.3/0" {
		t.Fatalf("before: %s", p.series())
	}
	e := mTrade("11", wB, wD, "SELL", "0.65", "1") // D sells 1 of its 5 Yes to B
	e.BlockNumber, e.Timestamp, e.TxHash = 80_000_100, mT0+950, mcond(0xfeed)
	loadThroughLedger(t, h.db, []ledger.Event{e})
	h.ok(q, &p)
	if p.series() != "+60:0.45/60 +180:0.3/60 +900:0.35/60 +950:0.35/0" {
		t.Errorf("after: %s", p.series())
	}
}
