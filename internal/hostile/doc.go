// Package hostile holds the standing hostile-client test: every pmx
// listener, wired as `pmx serve` wires it (cmd/pmx/serve.go) on real
// loopback listeners, driven with malformed requests, unclean paths, slow,
// stalled, aborted and oversized bodies. It asserts no avoidable 5xx, no Go
// type name in any answer, every answer in its service's error shape (data
// answers with x-trace-id), no ERROR log line caused by a client, and a
// bounded live heap and goroutine count. The package has no code of its
// own: only the test.
package hostile
