// keySigner is the wallet the official @polymarket/client takes, backed by a
// raw private key through ox (the client's own dependency, so the tests need
// no wallet library): it signs EIP-712 payloads and counts its signatures
// (clob.test.mjs checks how many a flow asked for). Shared by the client tests.
import { Address, Secp256k1, Signature, TypedData } from 'ox';

export function keySigner(privateKey) {
  const address = Address.checksum(Address.fromPublicKey(Secp256k1.getPublicKey({ privateKey })));
  const signer = {
    signatures: 0,
    async getAddress() { return address; },
    async signTypedData(payload) {
      signer.signatures++;
      return Signature.toHex(Secp256k1.sign({ payload: TypedData.getSignPayload(payload), privateKey }));
    },
    async signMessage() { throw new Error('not used'); },
    async sendTransaction() { throw new Error('not used'); },
  };
  return signer;
}
