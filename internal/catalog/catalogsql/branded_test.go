package catalogsql_test

import (
	"net/http"
	"strings"
	"testing"
)

// Production (branded) spellings and the contract's names they arrive as:
// every rename between clob-and-catalog.md §9.3–9.5 and interface.md's
// catalog resources.
var brandedEvent = map[string]string{"tweetCount": "postCount", "disqusThread": "commentThread",
	"parentEventId": "parentEvent"}
var brandedMarket = map[string]string{"twitterCardImage": "socialCardImage", "mailchimpTag": "mailTag",
	"umaEndDate": "oracleEndDate", "umaResolutionStatus": "oracleResolutionStatus",
	"umaResolutionStatuses": "oracleResolutionStatuses", "umaEndDateIso": "oracleEndDateIso",
	"umaBond": "oracleBond", "umaReward": "oracleReward", "disqusThread": "commentThread"}
var brandedSeries = map[string]string{"pythTokenID": "feedTokenID", "cgAssetName": "assetName"}

// "Catalog import maps branded input names to the contract's names":
// imported under production's spellings, an event is served under the
// contract's, with the values, and no branded key is served.
func TestContract_ImportMapsEveryBrandedName(t *testing.T) {
	e := newEnv(t)
	body := `{"id":"900","title":"Branded","tweetCount":17,"disqusThread":"dq-1","parentEventId":"899",
	 "series":[{"id":"901","pythTokenID":"pyth-1","cgAssetName":"bitcoin"}],
	 "markets":[{"id":"9001","outcomes":"[\"Yes\", \"No\"]","clobTokenIds":"[\"77\", \"78\"]",
	  "twitterCardImage":"https://img/card.png","mailchimpTag":"mc","umaEndDate":"2026-10-01T00:00:00Z",
	  "umaResolutionStatus":"resolved","umaResolutionStatuses":"[]","umaEndDateIso":"2026-10-01",
	  "umaBond":"500","umaReward":"5","disqusThread":"dq-2"}]}`
	resp, err := http.Post(e.srv.URL+"/admin/catalog", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("import: %d", resp.StatusCode)
	}
	var ev map[string]any
	if st := e.get(t, "/events/900", &ev); st != 200 {
		t.Fatalf("/events/900: %d", st)
	}
	want := map[string]string{"postCount": "17", "commentThread": "dq-1", "parentEvent": "899"}
	check := func(what string, obj map[string]any, renames map[string]string, want map[string]string) {
		t.Helper()
		for from, to := range renames {
			if _, ok := obj[from]; ok {
				t.Errorf("%s: branded key %q served", what, from)
			}
			if _, ok := obj[to]; !ok {
				t.Errorf("%s: contract key %q missing", what, to)
			}
		}
		for k, v := range want {
			if got := str(obj[k]); got != v {
				t.Errorf("%s: %s = %s, want %s", what, k, got, v)
			}
		}
	}
	check("event", ev, brandedEvent, want)
	m := objs(t, ev["markets"])[0]
	check("market", m, brandedMarket, map[string]string{"socialCardImage": "https://img/card.png", "mailTag": "mc",
		"oracleEndDate": "2026-10-01T00:00:00Z", "oracleResolutionStatus": "resolved", "oracleResolutionStatuses": "[]",
		"oracleEndDateIso": "2026-10-01", "oracleBond": "500", "oracleReward": "5", "commentThread": "dq-2"})
	s := objs(t, ev["series"])[0]
	check("series", s, brandedSeries, map[string]string{"feedTokenID": "pyth-1", "assetName": "bitcoin"})
}

// str renders a decoded value (decoded with UseNumber) as text.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case interface{ String() string }:
		return x.String()
	}
	return "?"
}
