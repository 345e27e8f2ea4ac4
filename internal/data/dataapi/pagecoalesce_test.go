package dataapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"pmx/internal/server"
)

// A hit of a page larger than net/http's connection buffer leaves in one
// write call on a listener that coalesces (internal/server/coalesce.go), and
// its bytes are the uncached server's; a HEAD hit and a miss are not armed.
func TestPageCache_ALargeHitLeavesInOneWriteCall(t *testing.T) {
	rig := newCacheRig(t, nil)
	rig.apply(rig.gen.setup())
	for i := 0; i < 40; i++ {
		rig.apply(rig.gen.batch(rig.clock.Now().Unix()))
	}
	path := "/v2/activity?user=" + rigWallet(0) + "&start=1&limit=500"
	_, want := fetch(t, rig.uncache.URL+path)
	if len(want) < server.CoalesceMin {
		t.Fatalf("the page is %d bytes: too small to test coalescing", len(want))
	}
	srv := httptest.NewUnstartedServer(rig.svc)
	srv.Listener = server.CoalesceWrites(srv.Config, srv.Listener)
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	get := func(method string) string {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	before := server.CoalescedWrites()
	if get("GET") != want { // the miss
		t.Fatal("the miss differs from the uncached page")
	}
	if n := server.CoalescedWrites() - before; n != 0 {
		t.Fatalf("a miss coalesced %d writes", n)
	}
	for i := 0; i < 3; i++ {
		if get("GET") != want || get("HEAD") != "" {
			t.Fatal("a hit differs from the uncached page")
		}
	}
	if n := server.CoalescedWrites() - before; n != 3 {
		t.Fatalf("coalesced writes = %d, want 3 (one per GET hit)", n)
	}
}
