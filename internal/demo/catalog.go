package demo

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// category is a market category with its share of events, how long its
// markets live, and how much it trades.
type category struct {
	name       string
	weight     int
	minLife    time.Duration
	maxLife    time.Duration
	popularity float64
	fees       bool // taker fees charged (as on fast markets)
}

var categories = []category{
	{"politics", 18, 20 * day, 400 * day, 1.4, false},
	{"sports", 26, 1 * day, 6 * day, 1.2, true},
	{"crypto", 18, 1 * day, 14 * day, 1.3, true},
	{"esports", 10, 1 * day, 4 * day, 0.7, true},
	{"culture", 8, 10 * day, 120 * day, 0.6, false},
	{"economics", 8, 10 * day, 45 * day, 0.9, false},
	{"weather", 6, 2 * day, 5 * day, 0.5, false},
	{"tech", 6, 15 * day, 150 * day, 0.6, false},
}

const day = 24 * time.Hour

// marketText is one market of an event spec: its question and labels.
type marketText struct {
	question string
	group    string // short label within a neg-risk group
	outcomes []string
}

// eventText is the text of an event: a title and its markets. negRisk
// events have 3-8 mutually exclusive Yes/No markets.
type eventText struct {
	title   string
	negRisk bool
	markets []marketText
}

var yesNo = []string{"Yes", "No"}

// describe invents an event of category cat ending at end.
func describe(r *rand.Rand, cat string, end time.Time) eventText {
	date := end.Format("January 2")
	year := end.Year()
	switch cat {
	case "politics":
		if r.IntN(2) == 0 {
			place := pick(r, places)
			office := pick(r, []string{"Governor", "Senate", "Mayoral", "Presidential"})
			ev := eventText{title: fmt.Sprintf("%s %s Election Winner %d", place, office, year), negRisk: true}
			for _, n := range pickN(r, lastNames, 3+r.IntN(6)) {
				ev.markets = append(ev.markets, marketText{
					question: fmt.Sprintf("Will %s win the %d %s %s election?", n, year, place, office),
					group:    n, outcomes: yesNo})
			}
			return ev
		}
		p := personName(r)
		q := fmt.Sprintf("Will %s announce a run for %s Governor by %s?", p, pick(r, places), date)
		return eventText{title: q, markets: []marketText{{question: q, outcomes: yesNo}}}
	case "sports":
		ts := pickN(r, teams, 2)
		title := fmt.Sprintf("%s vs. %s", ts[0], ts[1])
		if r.IntN(2) == 0 {
			ev := eventText{title: title, negRisk: true}
			for _, t := range ts {
				ev.markets = append(ev.markets, marketText{
					question: fmt.Sprintf("Will %s win on %s?", t, end.Format("2006-01-02")), group: t, outcomes: yesNo})
			}
			ev.markets = append(ev.markets, marketText{
				question: fmt.Sprintf("Will %s vs. %s end in a draw?", ts[0], ts[1]), group: "Draw", outcomes: yesNo})
			return ev
		}
		return eventText{title: title, markets: []marketText{{question: title, outcomes: ts}}}
	case "esports":
		g := pick(r, games)
		if r.IntN(4) == 0 {
			ev := eventText{title: fmt.Sprintf("%s Masters %d Winner", g, year), negRisk: true}
			for _, t := range pickN(r, esportsTeams, 4+r.IntN(5)) {
				ev.markets = append(ev.markets, marketText{
					question: fmt.Sprintf("Will %s win %s Masters %d?", t, g, year), group: t, outcomes: yesNo})
			}
			return ev
		}
		ts := pickN(r, esportsTeams, 2)
		q := fmt.Sprintf("%s: %s vs %s (BO3)", g, ts[0], ts[1])
		return eventText{title: q, markets: []marketText{{question: q, outcomes: ts}}}
	case "crypto":
		c := pick(r, coins)
		switch r.IntN(3) {
		case 0:
			q := fmt.Sprintf("%s Up or Down on %s?", c, date)
			return eventText{title: q, markets: []marketText{{question: q, outcomes: []string{"Up", "Down"}}}}
		case 1:
			lv := (50 + r.IntN(100)) * 1000
			q := fmt.Sprintf("Will %s be above $%d on %s?", c, lv, date)
			return eventText{title: q, markets: []marketText{{question: q, outcomes: yesNo}}}
		}
		ev := eventText{title: fmt.Sprintf("%s price on %s?", c, date), negRisk: true}
		base, step := 2000+r.IntN(40)*100, 100+r.IntN(3)*100
		n := 4 + r.IntN(5)
		for i := 0; i < n; i++ {
			lo, hi := base+i*step, base+(i+1)*step
			g := fmt.Sprintf("$%d-%d", lo, hi)
			switch i {
			case 0:
				g = fmt.Sprintf("<$%d", hi)
			case n - 1:
				g = fmt.Sprintf(">$%d", lo)
			}
			ev.markets = append(ev.markets, marketText{
				question: fmt.Sprintf("Will the price of %s be %s on %s?", c, g, date), group: g, outcomes: yesNo})
		}
		return ev
	case "economics":
		if r.IntN(2) == 0 {
			ev := eventText{title: fmt.Sprintf("Fed decision in %s?", end.Format("January 2006")), negRisk: true}
			for _, g := range []string{"No change", "25 bps decrease", "50+ bps decrease", "25+ bps increase"} {
				ev.markets = append(ev.markets, marketText{
					question: fmt.Sprintf("Fed %s after %s meeting?", g, end.Format("January 2006")), group: g, outcomes: yesNo})
			}
			return ev
		}
		q := fmt.Sprintf("Will US CPI YoY exceed %d.%d%% in %s?", 2+r.IntN(2), r.IntN(10), end.Format("January"))
		return eventText{title: q, markets: []marketText{{question: q, outcomes: yesNo}}}
	case "culture":
		if r.IntN(2) == 0 {
			award := pick(r, awards)
			ev := eventText{title: fmt.Sprintf("%s Winner %d", award, year), negRisk: true}
			for _, f := range pickN(r, films, 3+r.IntN(5)) {
				ev.markets = append(ev.markets, marketText{
					question: fmt.Sprintf("Will %q win %s %d?", f, award, year), group: f, outcomes: yesNo})
			}
			return ev
		}
		q := fmt.Sprintf("Will %s release a new album before %s?", pick(r, artists), date)
		return eventText{title: q, markets: []marketText{{question: q, outcomes: yesNo}}}
	case "weather":
		c := pick(r, cities)
		ev := eventText{title: fmt.Sprintf("Highest temperature in %s on %s?", c, date), negRisk: true}
		base := 15 + r.IntN(20)
		for i := 0; i < 3+r.IntN(6); i++ {
			g := fmt.Sprintf("%d°C", base+i)
			ev.markets = append(ev.markets, marketText{
				question: fmt.Sprintf("Will the highest temperature in %s be %s on %s?", c, g, date), group: g, outcomes: yesNo})
		}
		return ev
	}
	q := fmt.Sprintf("Will a %s-parameter open model top the leaderboard by %s?", pick(r, []string{"1T", "400B", "70B"}), date)
	return eventText{title: q, markets: []marketText{{question: q, outcomes: yesNo}}}
}
