package loadgen

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Bare answers each captured request target with its captured body and
// nothing else: the floor a server answering the same bytes cannot beat
// (issue 20 compares the data service against it, side by side in one run).
// Keys are request targets (path and query, as sent).
type Bare map[string][]byte

func (b Bare) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := b[r.URL.RequestURI()]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// Capture GETs every URL once and keeps the 200 bodies by request target.
func Capture(urls []string) (Bare, error) {
	out := Bare{}
	conns := map[string]*Conn{}
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	var buf []byte
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("loadgen: %q is not an http:// URL", raw)
		}
		c := conns[u.Host]
		if c == nil {
			if c, err = Dial(u.Host); err != nil {
				return nil, err
			}
			conns[u.Host] = c
		}
		status, body, err := c.Do(Request("GET", u.Host, u.RequestURI(), "", nil), buf[:0])
		if err != nil {
			return nil, err
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("loadgen: %s answered %d", raw, status)
		}
		out[u.RequestURI()] = append([]byte(nil), body...)
		buf = body
	}
	return out, nil
}
