package dataapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPaginationJSON(t *testing.T) {
	cases := []struct {
		p    Pagination
		want string
	}{
		{Pagination{Limit: 100}, `{"limit":100,"offset":0,"has_more":false,"next_cursor":null}`},
		{Pagination{Limit: 5, Offset: 10, NextCursor: "abc-_1"}, `{"limit":5,"offset":10,"has_more":true,"next_cursor":"abc-_1"}`},
		{Pagination{Limit: 1, NextCursor: `a"b`}, `{"limit":1,"offset":0,"has_more":true,"next_cursor":"a\"b"}`},
	}
	for _, tc := range cases {
		b, err := json.Marshal(tc.p)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v: %s (%v) want %s", tc.p, b, err, tc.want)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["has_more"] != (m["next_cursor"] != nil) {
			t.Errorf("has_more/next_cursor out of step: %s", b)
		}
	}
}

func TestWritePageAndData(t *testing.T) {
	type row struct {
		ID int `json:"id"`
	}
	cases := []struct {
		name string
		do   func(w http.ResponseWriter, r *http.Request)
		want string
	}{
		{"nil rows are an empty list", func(w http.ResponseWriter, r *http.Request) {
			WritePage[row](w, r, nil, Pagination{Limit: 100})
		}, `{"data":[],"pagination":{"limit":100,"offset":0,"has_more":false,"next_cursor":null}}`},
		{"rows with a next page", func(w http.ResponseWriter, r *http.Request) {
			WritePage(w, r, []row{{1}, {2}}, Pagination{Limit: 2, Offset: 2, NextCursor: "c"})
		}, `{"data":[{"id":1},{"id":2}],"pagination":{"limit":2,"offset":2,"has_more":true,"next_cursor":"c"}}`},
		{"nil list is an empty list", func(w http.ResponseWriter, r *http.Request) {
			WriteList[row](w, r, nil)
		}, `{"data":[]}`},
		{"list rows", func(w http.ResponseWriter, r *http.Request) {
			WriteList(w, r, []row{{1}})
		}, `{"data":[{"id":1}]}`},
		{"documented miss is data null", func(w http.ResponseWriter, r *http.Request) {
			WriteData(w, r, nil)
		}, `{"data":null}`},
		{"no HTML escaping", func(w http.ResponseWriter, r *http.Request) {
			WriteData(w, r, "a<b&c")
		}, `{"data":"a<b&c"}`},
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		tc.do(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if got := rec.Body.String(); got != tc.want+"\n" || rec.Code != 200 {
			t.Errorf("%s: %d %s want %s", tc.name, rec.Code, got, tc.want)
		}
	}
}

func TestWriteDataEncodingFailureIs500(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteData(rec, httptest.NewRequest(http.MethodGet, "/", nil), func() {})
	if rec.Code != 500 || decodeBody(t, rec)["code"] != "internal" {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
}
