// Package catalog is the catalog's domain: events, markets, series and tags
// in production's wire JSON, the Store interface the HTTP package reads and
// the storage packages implement, document import and normalisation, live
// market fields and how they apply, and mirroring ledger markets. It never
// serves HTTP (cataloghttp does).
package catalog
