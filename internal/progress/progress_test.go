package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestLogsEveryTenthWhenNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New("load", 100, &buf, slog.New(slog.NewTextHandler(&buf, nil)))
	for i := 0; i < 100; i++ {
		b.Add(1)
	}
	b.Finish()
	out := buf.String()
	if n := strings.Count(out, "msg=progress"); n != 10 {
		t.Fatalf("want 10 progress lines, got %d:\n%s", n, out)
	}
	if !strings.Contains(out, "percent=100") || !strings.Contains(out, "msg=done") {
		t.Fatalf("missing final lines:\n%s", out)
	}
}
