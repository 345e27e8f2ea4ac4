package perpshttp

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"pmx/internal/perps/perpsauth"
)

// TestVerifyStatus: replays are 422 with the bare replay text, a full replay
// cache is a retryable 503 (perps.md §6), verification errors 400; an error
// outside the catalogue is a 500 whose text never reaches the client.
func TestVerifyStatus(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, tc := range []struct {
		err   error
		code  int
		msg   string
		retry string
	}{
		{fmt.Errorf("op: %w", perpsauth.ErrReplayed), 422, perpsauth.ErrReplayed.Error(), ""},
		{fmt.Errorf("add: %w", perpsauth.ErrReplayFull), 503, "service_unavailable", "1"},
		{perpsauth.ErrInvalidSignature, 400, "invalid signature", ""},
		{errors.New("disk on fire at /var/pmx"), 500, "internal_error", ""},
	} {
		w := httptest.NewRecorder()
		s.writeError(w, tc.err, false)
		body := w.Body.String()
		if w.Code != tc.code || w.Header().Get("Retry-After") != tc.retry ||
			strings.TrimSpace(body) != `{"status":"err","error":"`+tc.msg+`"}` {
			t.Errorf("%v: answered %d %s, Retry-After %q", tc.err, w.Code, body, w.Header().Get("Retry-After"))
		}
	}
}
