// Package cataloghttp serves the catalog listener: routes, query parameters,
// rendering and its caches, the whole-response cache and its gzip form, the
// admin import route and listener refusals, over catalog.Store and
// catalog.LiveFields.
package cataloghttp
