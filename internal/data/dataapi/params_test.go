package dataapi

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustQuery(t *testing.T, route, raw string) *Query {
	t.Helper()
	q, err := ParseQuery(route, raw)
	if err != nil {
		t.Fatalf("%s?%s: %v", route, raw, err)
	}
	return q
}

// wantInvalid checks err is a 400 on param whose message contains msg.
func wantInvalid(t *testing.T, label string, err error, param, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidRequest || e.Parameter != param || !strings.Contains(e.Message, msg) {
		t.Errorf("%s: got %v (param %q), want 400 on %q containing %q", label, err, paramOf(err), param, msg)
	}
}

func paramOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Parameter
	}
	return ""
}

func TestSnake(t *testing.T) {
	cases := map[string]string{
		"sort_by": "sort_by", "sortBy": "sort_by", "SortBy": "sort_by", "conditionId": "condition_id",
		"conditionID": "condition_id", "excludeDepositsWithdrawals": "exclude_deposits_withdrawals",
		"bucketSeconds": "bucket_seconds", "sort_By": "sort_by", "asOf": "as_of", "user": "user",
		"USER": "user", "HTTPServer": "http_server",
	}
	for in, want := range cases {
		if got := snake(in); got != want {
			t.Errorf("%q: %q want %q", in, got, want)
		}
	}
}

func TestSpellingsAndAliases(t *testing.T) {
	cases := []struct {
		route, raw, param, want string
	}{
		{"/v2/positions", "sortBy=TOKENS", "sort_by", "TOKENS"},
		{"/v2/positions", "sort_by=TOKENS", "sort_by", "TOKENS"},
		{"/v2/activity", "excludeDepositsWithdrawals=false", "exclude_deposits_withdrawals", "false"},
		{"/v2/trades", "condition_id=a", "condition", "a"},
		{"/v2/trades", "conditionId=a", "condition", "a"},
		{"/v2/trades", "eventId=7", "event_id", "7"},
		{"/v2/live-volume", "id=7", "event_id", "7"},
		{"/v2/trades", "id=7", "event_id", ""}, // `id` is an alias on live-volume only
		{"/v2/builders/volume", "timePeriod=week", "interval", "week"},
		{"/v2/builders/volume", "time_period=week", "interval", "week"},
		{"/v2/leaderboard", "timePeriod=week", "time_period", "week"},
		{"/v2/user-pnl", "user_address=0xab", "user", "0xab"},
		{"/v2/user-pnl", "userAddress=0xab", "user", "0xab"},
		{"/v2/tokens", "token_ids=1", "token_id", "1"},
		{"/v2/prices-history", "tokenId=1", "token_id", "1"},
		{"/v2/holders", "includePnl=true", "include_pnl", "true"},
		{"/v2/positions", "sortBy=TOKENS&sort_by=TOKENS", "sort_by", "TOKENS"}, // same value twice is fine
		{"/v2/positions", "unknown=1&sort_by=PRICE", "sort_by", "PRICE"},       // unknown params ignored
		{"/v2/positions", "user=%20%200xab%20", "user", "0xab"},
	}
	for _, tc := range cases {
		got, err := mustQuery(t, tc.route, tc.raw).Get(tc.param)
		if err != nil || got != tc.want {
			t.Errorf("%s?%s %s: %q %v want %q", tc.route, tc.raw, tc.param, got, err, tc.want)
		}
	}
	_, err := mustQuery(t, "/v2/positions", "sortBy=TOKENS&sort_by=PRICE").Get("sort_by")
	wantInvalid(t, "conflicting spellings", err, "sort_by", "conflicting values")
}

func TestParseQueryRejections(t *testing.T) {
	cases := []struct{ raw, param, msg string }{
		{"offset=0", "offset", "offset is not supported"},
		{"limit=10&offset=", "offset", "offset is not supported"},
		{"Offset=5", "offset", "offset is not supported"},
		{"a=%zz", "", "malformed"},
		{"a=1;b=2", "", "malformed"},
	}
	for _, tc := range cases {
		_, err := ParseQuery("/v2/trades", tc.raw)
		wantInvalid(t, tc.raw, err, tc.param, tc.msg)
	}
}

func TestLimit(t *testing.T) {
	cases := []struct {
		raw  string
		want int32
		msg  string
	}{
		{"", 100, ""},
		{"limit=", 100, ""},
		{"limit=0", 100, ""},
		{"limit=1", 1, ""},
		{"limit=1000", 1000, ""},
		{"limit=1001", 0, "limit must be at most 1000"},
		{"limit=-1", 0, "between 0 and 1000"},
		{"limit=abc", 0, "between 0 and 1000"},
		{"limit=1.5", 0, "between 0 and 1000"},
		{"limit=99999999999", 0, "between 0 and 1000"},
	}
	for _, tc := range cases {
		got, err := mustQuery(t, "/v2/activity", tc.raw).Limit(100, 1000)
		if tc.msg != "" {
			wantInvalid(t, tc.raw, err, "limit", tc.msg)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %d %v want %d", tc.raw, got, err, tc.want)
		}
	}
}

func TestScalars(t *testing.T) {
	q := mustQuery(t, "/v2/trades", "takerOnly=FALSE&a=1&start=1700000000&end=x&filterAmount=2.5&neg=-1&b=maybe")
	if v, err := q.Bool("taker_only", true); err != nil || v {
		t.Errorf("taker_only: %v %v", v, err)
	}
	if v, err := q.Bool("a", false); err != nil || !v {
		t.Errorf("a: %v %v", v, err)
	}
	if v, err := q.Bool("absent", true); err != nil || !v {
		t.Errorf("absent bool: %v %v", v, err)
	}
	_, err := q.Bool("b", false)
	wantInvalid(t, "bool", err, "b", "true or false")
	if v, ok, err := q.Int64("start"); err != nil || !ok || v != 1700000000 {
		t.Errorf("start: %v %v %v", v, ok, err)
	}
	if _, ok, err := q.Int64("absent"); ok || err != nil {
		t.Errorf("absent int: %v %v", ok, err)
	}
	_, _, err = q.Int64("end")
	wantInvalid(t, "int", err, "end", "end must be an integer: x")
	if v, ok, err := q.Decimal("filter_amount"); err != nil || !ok || v.String() != "2.5" {
		t.Errorf("filter_amount: %v %v %v", v, ok, err)
	}
	_, _, err = q.Decimal("neg")
	wantInvalid(t, "decimal", err, "neg", "non-negative")
}

const cid = "0x789f0872f66cfffd21a33020e5c90e11f95f947e03be77ac2df7e86b0cb71527"
const combo = "0x03449eec66c044cecb729af4169b45afbf0000000000000000000000000000"

func TestLists(t *testing.T) {
	upper := "0x" + strings.ToUpper(cid[2:])
	got, err := mustQuery(t, "/v2/trades", "condition="+cid+",%20"+upper+"&conditionId="+cid).Conditions()
	if err != nil || !reflect.DeepEqual(got, []string{cid}) {
		t.Errorf("dedupe after lower-casing: %v %v", got, err)
	}
	var ids []string
	for i := 0; i < 21; i++ {
		ids = append(ids, fmt.Sprintf("%d", i+1))
	}
	if got, err := mustQuery(t, "/v2/trades", "event_id="+strings.Join(ids[:20], ",")+",1,2").EventIDs(); err != nil || len(got) != 20 {
		t.Errorf("20 distinct with repeats: %v %v", got, err)
	}
	_, err = mustQuery(t, "/v2/trades", "event_id="+strings.Join(ids, ",")).EventIDs()
	wantInvalid(t, "21 events", err, "event_id", "at most 20 distinct")
	if got, err := mustQuery(t, "/v2/trades", "").Conditions(); err != nil || got != nil {
		t.Errorf("absent list: %v %v", got, err)
	}
	bad := []struct{ raw, param, msg string }{
		{"condition=0x12", "condition", "invalid condition id: 0x12"},
		{"condition=" + combo, "condition", "invalid condition id: " + combo},
		{"event_id=0", "event_id", "invalid event id: 0"},
		{"event_id=-3", "event_id", "invalid event id: -3"},
		{"event_id=%2B3", "event_id", "invalid event id: +3"},
		{"event_id=abc", "event_id", "invalid event id: abc"},
	}
	for _, tc := range bad {
		q := mustQuery(t, "/v2/trades", tc.raw)
		var err error
		if tc.param == "condition" {
			_, err = q.Conditions()
		} else {
			_, err = q.EventIDs()
		}
		wantInvalid(t, tc.raw, err, tc.param, tc.msg)
	}
	if got, err := mustQuery(t, "/v2/activity/combos", "condition="+combo).ComboConditions(); err != nil || got[0] != combo {
		t.Errorf("combo: %v %v", got, err)
	}
	_, err = mustQuery(t, "/v2/activity/combos", "condition="+cid).ComboConditions()
	wantInvalid(t, "market id as combo", err, "condition", "invalid condition id")
	_, err = mustQuery(t, "/v2/activity/combos", "condition=0x04"+combo[4:]).ComboConditions()
	wantInvalid(t, "combo without 03 prefix", err, "condition", "invalid condition id")
}

func TestTokenIDs(t *testing.T) {
	max := "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"123", "123", true}, {"00123", "123", true}, {"0", "0", true}, {max, max, true},
		{"115792089237316195423570985008687907853269984665640564039457584007913129639936", "", false},
		{"-1", "", false}, {"1e5", "", false}, {"0x12", "", false}, {"", "", false},
	}
	for _, tc := range cases {
		got, ok := TokenID(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q: %q %v", tc.in, got, ok)
		}
	}
	got, err := mustQuery(t, "/v2/tokens", "token_ids=1,2&token_id=2,3").TokenIDs(50)
	if err != nil || !reflect.DeepEqual(got, []string{"1", "2", "3"}) {
		t.Errorf("tokens: %v %v", got, err)
	}
	_, err = mustQuery(t, "/v2/tokens", "token_id=1,2,3").TokenIDs(2)
	wantInvalid(t, "token cap", err, "token_id", "at most 2 distinct")
}

func TestUser(t *testing.T) {
	wallet := "0x379a410a36c101e3b8dfb6c90d1176eb0def4b1a"
	cases := []struct {
		raw      string
		required bool
		want     string
		msg      string
	}{
		{"user=" + wallet, true, wallet, ""},
		{"user=" + strings.ToUpper(wallet[:2]) + strings.ToUpper(wallet[2:]), true, wallet, ""},
		{"", false, "", ""},
		{"", true, "", "required query param 'user' not provided"},
		{"user=", true, "", "required query param 'user' not provided"},
		{"user=0x123", true, "", "invalid user address: 0x123"},
		{"user=0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E", true, "", "known protocol contract address"},
		{"user=0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb", false, "", "known protocol contract address"},
	}
	for _, tc := range cases {
		got, err := mustQuery(t, "/v2/positions", tc.raw).User(tc.required)
		if tc.msg != "" {
			wantInvalid(t, tc.raw, err, "user", tc.msg)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v", tc.raw, got, err)
		}
	}
	if got, err := mustQuery(t, "/v2/user-pnl", "user_address="+wallet).User(true); err != nil || got != wallet {
		t.Errorf("user_address alias: %q %v", got, err)
	}
}

func TestEnums(t *testing.T) {
	cases := []struct {
		e        Enum
		raw, def string
		want     string
		msg      string
	}{
		{EnumPositionSortBy, "sortBy=NOPE", "", "", "invalid position sortBy: NOPE"},
		{EnumPositionSortBy, "sortBy=tokens", "", "TOKENS", ""},
		{EnumPositionSortBy, "", "CURRENT_VALUE", "CURRENT_VALUE", ""},
		{EnumComboSortBy, "sort_by=X", "", "", "sortBy must be one of FIRST_ENTRY, ENTRY_COST, CURRENT_VALUE, UPDATED"},
		{EnumTimePeriod, "time_period=year", "day", "", "time_period must be one of day, week, month, all"},
		{EnumTimePeriod, "timePeriod=WEEK", "day", "week", ""},
		{EnumLeaderboardSortBy, "sort_by=ROI", "PNL", "", "sort_by must be PNL or VOLUME"},
		{EnumUserPnlInterval, "interval=2d", "1d", "", "interval must be one of max, all, 1m, 1w, 1d, 12h, 6h"},
		{EnumUserPnlInterval, "interval=1M", "1d", "", "interval must be one of"}, // case-sensitive
		{EnumUserPnlFidelity, "fidelity=2h", "1h", "", "fidelity must be one of 1d, 18h, 12h, 3h, 1h"},
		{EnumPricesHistoryInterval, "interval=3h", "", "", "interval must be one of max, all, 1m, 1w, 1d, 6h, 1h"},
		{EnumPricesHistoryInterval, "interval=", "", "", "interval must be one of"}, // empty is malformed here
		{EnumPricesHistoryInterval, "", "", "", ""},
		{EnumBuildersInterval, "timePeriod=year", "day", "", "time_period must be one of day, week, month, all"},
		{EnumSide, "side=HOLD", "", "", "side must be BUY or SELL"},
		{EnumSide, "side=sell", "", "SELL", ""},
		{EnumFilterType, "filterType=USD", "TOKENS", "", "filterType must be CASH or TOKENS"},
		{EnumActivitySortBy, "sort_by=CASH", "TIMESTAMP", "", "only sortBy=TIMESTAMP with sortDirection=DESC is supported"},
		{EnumSortDirection, "sortDirection=asc", "DESC", "ASC", ""},
		{EnumPositionStatus, "status=", "OPEN", "OPEN", ""}, // blank is absent elsewhere
	}
	for _, tc := range cases {
		route := "/v2/x"
		if tc.e.Param == "interval" && tc.e.Message[0] == 't' {
			route = "/v2/builders/volume"
		}
		got, err := mustQuery(t, route, tc.raw).Enum(tc.e, tc.def)
		if tc.msg != "" {
			wantInvalid(t, tc.raw, err, tc.e.Param, tc.msg)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v want %q", tc.raw, got, err, tc.want)
		}
	}
	got, err := mustQuery(t, "/v2/activity", "type=trade,TIP,TRADE").EnumList(EnumActivityType)
	if err != nil || !reflect.DeepEqual(got, []string{"TRADE", "TIP"}) {
		t.Errorf("type list: %v %v", got, err)
	}
	_, err = mustQuery(t, "/v2/activity", "type=TRADE,FOO").EnumList(EnumActivityType)
	wantInvalid(t, "bad type", err, "type", "invalid activity type: FOO")
}

func TestExclusive(t *testing.T) {
	q := mustQuery(t, "/v2/activity", "condition="+cid+"&event_id=1")
	wantInvalid(t, "both", q.Exclusive("condition", "event_id"), "event_id", "mutually exclusive")
	if err := mustQuery(t, "/v2/activity", "event_id=1").Exclusive("condition", "event_id"); err != nil {
		t.Error(err)
	}
}

func TestProtocolContractsWellFormed(t *testing.T) {
	for a := range protocolContracts {
		if got, ok := Address(a); !ok || got != a {
			t.Errorf("%q is not a lower-case address", a)
		}
	}
	if len(protocolContracts) < 20 {
		t.Errorf("only %d contracts", len(protocolContracts))
	}
}

// FuzzParams: any query string parses or fails with a 400, every getter
// either fails with a 400 or returns canonical values.
func FuzzParams(f *testing.F) {
	for _, s := range []string{
		"user=0x379a410a36c101e3b8dfb6c90d1176eb0def4b1a&limit=10",
		"conditionId=" + cid + "," + cid + "&eventId=1,2",
		"sortBy=TOKENS&sort_by=PRICE", "offset=1", "limit=1001", "a=%zz", "type=TRADE,TIP",
		"token_ids=00123&interval=&time_period=week", "start=-5&end=99999999999999999999",
		"condition=" + combo, "user=0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e",
	} {
		f.Add("/v2/activity", s)
	}
	f.Add("/v2/builders/volume", "timePeriod=month&limit=90")
	f.Fuzz(func(t *testing.T, route, raw string) {
		q, err := ParseQuery(route, raw)
		check := func(err error) {
			var e *Error
			if err != nil && (!errors.As(err, &e) || e.Code != CodeInvalidRequest) {
				t.Fatalf("non-400 error %v", err)
			}
		}
		check(err)
		if err != nil {
			return
		}
		if u, err := q.User(false); err == nil && u != "" {
			if a, ok := Address(u); !ok || a != u {
				t.Fatalf("user %q not canonical", u)
			}
		} else {
			check(err)
		}
		if cs, err := q.Conditions(); err == nil {
			if len(cs) > MaxListValues {
				t.Fatalf("%d conditions", len(cs))
			}
			for _, c := range cs {
				if a, ok := ConditionID(c); !ok || a != c {
					t.Fatalf("condition %q not canonical", c)
				}
			}
		} else {
			check(err)
		}
		_, err = q.ComboConditions()
		check(err)
		_, err = q.EventIDs()
		check(err)
		_, err = q.TokenIDs(50)
		check(err)
		if l, err := q.Limit(100, 1000); err == nil && (l < 1 || l > 1000) {
			t.Fatalf("limit %d", l)
		} else {
			check(err)
		}
		_, err = q.Bool("taker_only", true)
		check(err)
		_, _, err = q.Int64("start")
		check(err)
		_, _, err = q.Decimal("filter_amount")
		check(err)
		for _, e := range []Enum{EnumPositionSortBy, EnumTimePeriod, EnumPricesHistoryInterval, EnumBuildersInterval} {
			v, err := q.Enum(e, "")
			check(err)
			if err == nil && v != "" && !slices.Contains(e.Values, v) {
				t.Fatalf("%s: %q not canonical", e.Param, v)
			}
		}
		_, err = q.EnumList(EnumActivityType)
		check(err)
		_, err = q.Cursor()
		check(err)
	})
}
