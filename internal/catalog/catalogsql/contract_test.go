package catalogsql_test

import (
	"encoding/json"
	"strings"
	"testing"

	"pmx/internal/catalog/catalog"
)

// The contract's field lists (interface.md "Catalog resources"), copied
// verbatim: kind -> space-separated fields. These are the oracle; the Go
// types are checked against them, never the other way round.
var (
	eventFields = map[string]string{
		"string":   "id ticker slug title subtitle description resolutionSource image icon sortBy category subcategory templateVariables published_at createdBy updatedBy featuredImage commentThread parentEvent negRiskMarketID eventDate seriesSlug score elapsed period gmpChartMode estimatedValue carouselMap gameStatus",
		"datetime": "startDate creationDate endDate createdAt updatedAt closedTime startTime finishedTimestamp deployingTimestamp scheduledDeploymentTimestamp",
		"bool":     "active closed archived new featured restricted isTemplate commentsEnabled enableOrderBook negRisk cyom showAllOutcomes showMarketImages automaticallyResolved enableNegRisk automaticallyActive live ended estimateValue cantEstimate pendingDeployment deploying",
		"number":   "liquidity volume openInterest competitive volume24hr volume1wk volume1mo volume1yr liquidityClob negRiskFeeBips commentCount eventWeek postCount featuredOrder spreadsMainLine totalsMainLine",
		"object":   "imageOptimized iconOptimized featuredImageOptimized",
		"strings":  "subEvents",
		"array":    "markets series categories collections tags eventCreators chats templates",
	}
	marketFields = map[string]string{
		"string":   "id question conditionId slug socialCardImage resolutionSource category liquidity sponsorName sponsorImage xAxisValue yAxisValue denominationToken fee image icon lowerBound upperBound description outcomes outcomePrices volume marketType formatType lowerBoundDate upperBoundDate closedTime mailTag resolvedBy groupItemTitle groupItemThreshold questionID oracleEndDate oracleResolutionStatus oracleResolutionStatuses endDateIso startDateIso oracleEndDateIso gameStartTime version clobTokenIds commentThread shortOutcomes teamAID teamBID oracleBond oracleReward creator pastSlugs chartColor seriesColor gameId groupItemRange sportsMarketType",
		"datetime": "endDate startDate createdAt updatedAt readyTimestamp fundedTimestamp acceptingOrdersTimestamp deployingTimestamp scheduledDeploymentTimestamp eventStartTime",
		"bool":     "active closed wideFormat new featured archived restricted enableOrderBook hasReviewedDates readyForCron commentsEnabled acceptingOrders notificationsEnabled ready funded automaticallyResolved automaticallyActive clearBookOnStart showGmpSeries showGmpOutcome manualActivation negRiskOther pendingDeployment deploying rfqEnabled feesEnabled",
		"number":   "createdBy updatedBy marketGroup orderPriceMinTickSize orderMinSize curationOrder volumeNum liquidityNum volume24hr volume1wk volume1mo volume1yr secondsDelay volume24hrClob volume1wkClob volume1moClob volume1yrClob volumeClob liquidityClob makerBaseFee takerBaseFee customLiveness score competitive rewardsMinSize rewardsMaxSpread spread oneDayPriceChange oneHourPriceChange oneWeekPriceChange oneMonthPriceChange oneYearPriceChange lastTradePrice bestBid bestAsk line",
		"strings":  "positionIds",
		"object":   "imageOptimized iconOptimized feeSchedule",
		"array":    "events categories tags",
	}
	tagFields = map[string]string{
		"string":   "id label slug publishedAt",
		"bool":     "forceShow forceHide isCarousel",
		"integer":  "createdBy updatedBy",
		"datetime": "createdAt updatedAt",
	}
	imageFields = map[string]string{
		"string": "id imageUrlSource imageUrlOptimized imageOptimizedLastUpdated field relname",
		"number": "imageSizeKbSource imageSizeKbOptimized relID",
		"bool":   "imageOptimizedComplete",
	}
	feeScheduleFields = map[string]string{"number": "exponent rate rebateRate", "bool": "takerOnly"}
	// Lists the contract gives without types: presence only.
	categoryFields     = "id label parentCategory slug publishedAt createdBy updatedBy createdAt updatedAt"
	seriesFields       = "id ticker slug title subtitle seriesType recurrence description image icon layout active closed archived new featured restricted isTemplate templateVariables publishedAt createdBy updatedBy createdAt updatedAt commentsEnabled competitive volume24hr volume liquidity startDate feedTokenID assetName score events collections categories tags commentCount chats"
	collectionFields   = "id ticker slug title subtitle collectionType description tags image icon headerImage layout active closed archived new featured restricted isTemplate templateVariables publishedAt createdBy updatedBy createdAt updatedAt commentsEnabled imageOptimized iconOptimized headerImageOptimized"
	chatFields         = "id channelId channelName channelImage live startTime endTime"
	eventCreatorFields = "id creatorName creatorHandle creatorUrl creatorImage createdAt updatedAt"
	templateFields     = "id eventTitle eventSlug eventImage marketTitle description resolutionSource negRisk sortBy showMarketImages seriesSlug outcomes"
)

// checkFields fails for a listed field that is missing or has the wrong JSON
// type. With full set, null is a failure too (the fixture fills every field);
// otherwise null is accepted for strings, numbers, date-times and objects.
func checkFields(t *testing.T, where string, obj map[string]any, spec map[string]string, full bool) {
	t.Helper()
	for kind, names := range spec {
		for _, f := range strings.Fields(names) {
			v, ok := obj[f]
			if !ok {
				t.Errorf("%s: field %q missing", where, f)
				continue
			}
			if v == nil {
				if full || kind == "bool" || kind == "array" || kind == "strings" {
					t.Errorf("%s: field %q is null", where, f)
				}
				continue
			}
			good := false
			switch kind {
			case "string":
				_, good = v.(string)
			case "datetime":
				s, isStr := v.(string)
				good = isStr && catalog.DateKey(s) != ""
			case "bool":
				_, good = v.(bool)
			case "number":
				_, good = v.(json.Number)
			case "integer":
				n, isNum := v.(json.Number)
				_, err := n.Int64()
				good = isNum && err == nil
			case "object":
				_, good = v.(map[string]any)
			case "array":
				_, good = v.([]any)
			case "strings":
				arr, isArr := v.([]any)
				good = isArr
				for _, x := range arr {
					if _, s := x.(string); !s {
						good = false
					}
				}
			}
			if !good {
				t.Errorf("%s: field %q = %#v, want %s", where, f, v, kind)
			}
		}
	}
}

func checkPresent(t *testing.T, where string, obj map[string]any, names string) {
	t.Helper()
	for _, f := range strings.Fields(names) {
		if _, ok := obj[f]; !ok {
			t.Errorf("%s: field %q missing", where, f)
		}
	}
}

func objs(t *testing.T, v any) []map[string]any {
	t.Helper()
	arr, ok := v.([]any)
	if !ok {
		t.Fatalf("not an array: %#v", v)
	}
	out := make([]map[string]any, len(arr))
	for i, x := range arr {
		out[i] = x.(map[string]any)
	}
	return out
}

func TestContractFieldTypesFullEvent(t *testing.T) {
	e := newEnv(t)
	var ev map[string]any
	if st := e.get(t, "/events/9001", &ev); st != 200 {
		t.Fatalf("status %d", st)
	}
	checkFields(t, "event", ev, eventFields, true)
	for _, img := range []string{"imageOptimized", "iconOptimized", "featuredImageOptimized"} {
		checkFields(t, "event."+img, ev[img].(map[string]any), imageFields, true)
	}
	markets := objs(t, ev["markets"])
	if len(markets) != 2 {
		t.Fatalf("%d markets, want 2", len(markets))
	}
	for _, m := range markets {
		checkFields(t, "market", m, marketFields, true)
		checkFields(t, "market.imageOptimized", m["imageOptimized"].(map[string]any), imageFields, true)
		checkFields(t, "market.feeSchedule", m["feeSchedule"].(map[string]any), feeScheduleFields, true)
		if m["marketMakerAddress"] != "" {
			t.Errorf("marketMakerAddress = %#v, want \"\"", m["marketMakerAddress"])
		}
		for _, tg := range objs(t, m["tags"]) {
			checkFields(t, "market.tag", tg, tagFields, true)
		}
		for _, c := range objs(t, m["categories"]) {
			checkPresent(t, "market.category", c, categoryFields)
		}
	}
	for _, tg := range objs(t, ev["tags"]) {
		checkFields(t, "event.tag", tg, tagFields, true)
	}
	for _, s := range objs(t, ev["series"]) {
		checkPresent(t, "series", s, seriesFields)
	}
	for _, c := range objs(t, ev["collections"]) {
		checkPresent(t, "collection", c, collectionFields)
		checkFields(t, "collection.headerImageOptimized", c["headerImageOptimized"].(map[string]any), imageFields, true)
	}
	for _, c := range objs(t, ev["categories"]) {
		checkPresent(t, "category", c, categoryFields)
	}
	for _, c := range objs(t, ev["chats"]) {
		checkPresent(t, "chat", c, chatFields)
	}
	for _, c := range objs(t, ev["eventCreators"]) {
		checkPresent(t, "eventCreator", c, eventCreatorFields)
	}
	for _, c := range objs(t, ev["templates"]) {
		checkPresent(t, "template", c, templateFields)
	}

	var tags []any
	if st := e.get(t, "/events/9001/tags", &tags); st != 200 || len(tags) != 2 {
		t.Fatalf("/events/9001/tags: %d, %d tags", st, len(tags))
	}
	for _, tg := range objs(t, tags) {
		checkFields(t, "/events/{id}/tags", tg, tagFields, true)
	}
	// The fixture spells some fields the production way; they come out
	// under the contract's names.
	m0 := markets[0]
	if m0["socialCardImage"] != "https://img.example/card.png" || m0["oracleBond"] != "500" || ev["commentThread"] != "t-9001" {
		t.Errorf("production aliases not mapped: %v %v %v", m0["socialCardImage"], m0["oracleBond"], ev["commentThread"])
	}
	if s := objs(t, ev["series"])[0]; s["feedTokenID"] != "0xfeed" || s["assetName"] != "usd-coin" {
		t.Errorf("series aliases not mapped: %v %v", s["feedTokenID"], s["assetName"])
	}
}

// A ledger-made (demo) event has every listed field too: unknown values are
// null, booleans and arrays are never null.
func TestContractFieldsLedgerEvent(t *testing.T) {
	e := newEnv(t)
	var ev map[string]any
	if st := e.get(t, "/events/101", &ev); st != 200 {
		t.Fatalf("status %d", st)
	}
	checkFields(t, "event", ev, eventFields, false)
	for _, m := range objs(t, ev["markets"]) {
		checkFields(t, "market", m, marketFields, false)
		for _, f := range []string{"liquidity", "volume", "fee"} {
			if _, ok := m[f].(string); !ok {
				t.Errorf("market %s = %#v, want a string", f, m[f])
			}
		}
		if m["marketMakerAddress"] != "" {
			t.Errorf("marketMakerAddress = %#v", m["marketMakerAddress"])
		}
	}
	var tags []any
	if st := e.get(t, "/events/101/tags", &tags); st != 200 || len(tags) == 0 {
		t.Fatalf("/events/101/tags: %d, %d tags (the category tag expected)", st, len(tags))
	}
	for _, tg := range objs(t, tags) {
		checkFields(t, "tag", tg, tagFields, false)
	}
}

func TestJSONInStringFields(t *testing.T) {
	e := newEnv(t)
	var m map[string]any
	if st := e.get(t, "/markets/559651", &m); st != 200 {
		t.Fatalf("status %d", st)
	}
	want := map[string][]string{
		"outcomes":      {"Yes", "No"},
		"outcomePrices": {"0.0455", "0.9545"},
		"clobTokenIds": {"3233822019000000000000000000000000000000000000000000000000000000003401",
			"2565931067000000000000000000000000000000000000000000000000000000001962"},
	}
	for f, w := range want {
		s, ok := m[f].(string)
		if !ok {
			t.Fatalf("%s is %#v, want a JSON-in-a-string", f, m[f])
		}
		var got []string
		if err := json.Unmarshal([]byte(s), &got); err != nil {
			t.Fatalf("%s = %q does not decode: %v", f, s, err)
		}
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("%s = %v, want %v", f, got, w)
		}
	}
	// Demo market from a ledger line: same decoding, tokens in outcome order.
	var dm map[string]any
	e.get(t, "/markets/slug/btc-100k", &dm)
	var outs, toks []string
	json.Unmarshal([]byte(dm["outcomes"].(string)), &outs)
	json.Unmarshal([]byte(dm["clobTokenIds"].(string)), &toks)
	if strings.Join(outs, ",") != "Yes,No" || strings.Join(toks, ",") != "101,102" {
		t.Errorf("ledger market outcomes %v tokens %v", outs, toks)
	}
}
