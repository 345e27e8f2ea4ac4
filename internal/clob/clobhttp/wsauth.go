package clobhttp

import (
	"context"
	"crypto/subtle"
)

// Credentials reports whether apiKey, secret and passphrase are an active
// (non-builder) API key's credentials: the WebSocket user channel's
// authentication (clobws), which sends the credentials themselves instead
// of an HMAC. A store failure is an error, never a refusal.
func (h *Handler) Credentials(ctx context.Context, apiKey, secret, passphrase string) (bool, error) {
	k, ok, err := h.store.Get(ctx, apiKey)
	if err != nil || !ok || k.Revoked || isBuilderKey(k) {
		return false, err
	}
	c := h.deriver.Derive(k.Address, k.Nonce, k.Generation)
	sOK := subtle.ConstantTimeCompare([]byte(c.Secret), []byte(secret))
	pOK := subtle.ConstantTimeCompare([]byte(c.Passphrase), []byte(passphrase))
	return sOK&pOK == 1, nil
}
