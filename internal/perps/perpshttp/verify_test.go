package perpshttp

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"pmx/internal/perps/perpsauth"
)

// TestVerifyStatus: replays are 422 with the bare replay text, a full replay
// cache is a retryable 503 (perps.md §6), any other verification error 400.
func TestVerifyStatus(t *testing.T) {
	for _, tc := range []struct {
		err   error
		code  int
		msg   string
		retry string
	}{
		{fmt.Errorf("op: %w", perpsauth.ErrReplayed), 422, perpsauth.ErrReplayed.Error(), ""},
		{fmt.Errorf("add: %w", perpsauth.ErrReplayFull), 503, "service_unavailable", "1"},
		{errors.New("invalid signature"), 400, "invalid signature", ""},
	} {
		if code, msg := verifyStatus(tc.err); code != tc.code || msg != tc.msg {
			t.Errorf("%v: %d %q, want %d %q", tc.err, code, msg, tc.code, tc.msg)
		}
		w := httptest.NewRecorder()
		verifyErr(w, tc.err)
		if w.Code != tc.code || w.Header().Get("Retry-After") != tc.retry {
			t.Errorf("%v: answered %d, Retry-After %q", tc.err, w.Code, w.Header().Get("Retry-After"))
		}
	}
}
