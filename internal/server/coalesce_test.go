package server

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// armingHandler answers ?n=N with N bytes, arming its connection as the
// contract of Arm allows (a GET body of at least CoalesceMin, one Write).
func armingHandler(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	body := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	var cc *CoalesceConn
	if r.Method == http.MethodGet && n >= CoalesceMin {
		cc = Coalescer(r)
		cc.Arm()
	}
	_, _ = w.Write(body)
	cc.Disarm()
}

// fetchAll requests each size over one keep-alive client and checks every
// body; it returns how many writes were coalesced meanwhile.
func fetchAll(t *testing.T, base string, sizes []int) uint64 {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	before := CoalescedWrites()
	for _, n := range sizes {
		for _, method := range []string{"GET", "HEAD", "GET"} {
			req, _ := http.NewRequest(method, base+"/?n="+strconv.Itoa(n), nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s n=%d: %v", method, n, err)
			}
			b, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			want := n
			if method == "HEAD" {
				want = 0
			}
			if err != nil || resp.StatusCode != 200 || len(b) != want ||
				!bytes.Equal(b, bytes.Repeat([]byte("0123456789abcdef"), want/16+1)[:want]) {
				t.Fatalf("%s n=%d: status %d, %d bytes, err %v", method, n, resp.StatusCode, len(b), err)
			}
		}
	}
	return CoalescedWrites() - before
}

// sizes around net/http's 4 KB connection buffer and far above it.
var coalesceSizes = []int{0, 100, 4000, CoalesceMin - 1, CoalesceMin, 5000, 8192, 8300, 121 << 10, 300000}

func TestCoalesce_AnArmedLargeResponseLeavesInOneWriteCall(t *testing.T) {
	l := &Listener{Name: "data", Addr: "127.0.0.1:0", Handler: http.HandlerFunc(armingHandler), ServesOK: true, Coalesce: true}
	startGroup(t, l)
	want := uint64(0)
	for _, n := range coalesceSizes {
		if n >= CoalesceMin {
			want += 2 // two GETs per size; a HEAD or a smaller body is not armed
		}
	}
	if got := fetchAll(t, l.URL(), coalesceSizes); got != want {
		t.Fatalf("coalesced writes = %d, want %d (one per armed response)", got, want)
	}
}

func TestCoalesce_AListenerWithoutItWritesAsNetHTTPDoes(t *testing.T) {
	l := &Listener{Name: "data", Addr: "127.0.0.1:0", Handler: http.HandlerFunc(armingHandler), ServesOK: true}
	startGroup(t, l)
	if got := fetchAll(t, l.URL(), coalesceSizes); got != 0 {
		t.Fatalf("coalesced writes = %d on a listener without Coalesce", got)
	}
}
