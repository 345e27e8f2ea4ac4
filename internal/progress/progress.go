// Package progress reports how far long work (demo load, ingest, replay) has
// got: a redrawn bar on a terminal, otherwise a structured log line every
// tenth and at least every few seconds, so logs stay readable and a long
// task is never silent.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Bar tracks done out of total for one task. Safe for concurrent use.
type Bar struct {
	mu       sync.Mutex
	task     string
	total    int64
	done     int64
	start    time.Time
	w        io.Writer // nil when not a terminal
	log      *slog.Logger
	lastDraw time.Time
	lastLog  int64 // tenths logged
	loggedAt time.Time
	// Unit names what is counted ("days", "events"), shown with the counts.
	Unit string
}

// logEvery is the longest quiet time between two log lines of a task.
const logEvery = 5 * time.Second

// New starts a bar. If w is a terminal the bar is drawn on it; otherwise
// progress goes to log.
func New(task string, total int64, w io.Writer, log *slog.Logger) *Bar {
	b := &Bar{task: task, total: total, start: time.Now(), log: log}
	b.loggedAt = b.start
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.w = w
	}
	return b
}

// Add records n more units done.
func (b *Bar) Add(n int64) { b.Set(b.done + n) }

// Set records done units.
func (b *Bar) Set(done int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = done
	if b.w != nil {
		if time.Since(b.lastDraw) < 100*time.Millisecond && done < b.total {
			return
		}
		b.lastDraw = time.Now()
		b.draw()
		return
	}
	if b.log != nil && b.total > 0 {
		tenth := done * 10 / b.total
		if tenth > b.lastLog || time.Since(b.loggedAt) >= logEvery && done < b.total {
			b.lastLog = max(b.lastLog, tenth)
			b.loggedAt = time.Now()
			attrs := []any{"task", b.task, "done", done, "total", b.total}
			if b.Unit != "" {
				attrs = append(attrs, "unit", b.Unit)
			}
			b.log.Info("progress", append(attrs, "percent", done*100/b.total,
				"elapsed", time.Since(b.start).Round(time.Millisecond).String())...)
		}
	}
}

// Finish draws the final state and ends the line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w != nil {
		b.draw()
		fmt.Fprintln(b.w)
	}
	if b.log != nil {
		b.log.Info("done", "task", b.task, "count", b.done, "elapsed", time.Since(b.start).Round(time.Millisecond).String())
	}
}

func (b *Bar) draw() {
	const width = 30
	filled := 0
	pct := int64(0)
	if b.total > 0 {
		filled = int(b.done * width / b.total)
		pct = b.done * 100 / b.total
	}
	bar := make([]byte, width)
	for i := range bar {
		if i < filled {
			bar[i] = '#'
		} else {
			bar[i] = '.'
		}
	}
	unit := ""
	if b.Unit != "" {
		unit = " " + b.Unit
	}
	fmt.Fprintf(b.w, "\r%s [%s] %3d%% %d/%d%s %s", b.task, bar, pct, b.done, b.total, unit,
		time.Since(b.start).Round(100*time.Millisecond))
}
