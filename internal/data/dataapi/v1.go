package dataapi

import "net/http"

// V1Retired is the day version 1 of the data service was retired.
const V1Retired = "2026-10-24"

// v1Successors maps each retired v1 route to the v2 route that replaces it
// (the contract's "Route mapping, v1 to v2").
var v1Successors = map[string]string{
	"/positions":               "/v2/positions",
	"/closed-positions":        "/v2/positions?status=CLOSED",
	"/v1/market-positions":     "/v2/positions?condition=...",
	"/trades":                  "/v2/trades",
	"/activity":                "/v2/activity",
	"/value":                   "/v2/value",
	"/oi":                      "/v2/oi",
	"/live-volume":             "/v2/live-volume",
	"/v1/activity/combos":      "/v2/activity/combos",
	"/v1/positions/combos":     "/v2/positions/combos",
	"/v1/leaderboard":          "/v2/leaderboard",
	"/v1/builders/leaderboard": "/v2/builders/leaderboard",
	"/v1/builders/volume":      "/v2/builders/volume",
	"/traded":                  "/v2/user-stats",
	"/holders":                 "/v2/holders",
}

// registerV1 mounts the retired v1 routes: each answers 410 gone with the
// standard error body naming its v2 successor.
func (s *Service) registerV1() {
	for path, next := range v1Successors {
		msg := "data API v1 " + path + " was retired on " + V1Retired + "; use " + next
		s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) error {
			return Gone(msg)
		})
	}
}
