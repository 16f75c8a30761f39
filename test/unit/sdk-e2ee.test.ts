/**
 * The SDK's end-to-end encryption (src/sdk/e2ee.ts) against the C SDK's libsodium mode as the reference facts
 * describe it (§3 "End-to-end encryption"): the other end here is built directly from the libsodium primitives the C
 * SDK calls (crypto_kx server session keys, one secretstream per direction keyed by the sender's tx key, the 24-byte
 * header as first message, TAG_MESSAGE pushes), not from the SDK's own code. Both directions interoperate; a
 * tampered, replayed or foreign message is refused; a bad header or key length is refused with a sentence.
 * @store-independent: nothing here reads the store under test.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import sodium from 'libsodium-wrappers';
import { SdkError } from '../../src/sdk/errors.js';
import { e2eeSession, newKeyPair, sodiumReady } from '../../src/sdk/e2ee.js';

/** A hosting end as the C SDK builds it, from libsodium alone. */
function cSdkServer(clientPublicKey: Uint8Array) {
  const own = sodium.crypto_kx_keypair();
  const { sharedRx, sharedTx } = sodium.crypto_kx_server_session_keys(own.publicKey, own.privateKey, clientPublicKey);
  const { state: push, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(sharedTx);
  let pull: ReturnType<typeof sodium.crypto_secretstream_xchacha20poly1305_init_pull> | undefined;
  return {
    publicKey: own.publicKey,
    header: Buffer.from(header),
    seal: (text: string) => Buffer.from(sodium.crypto_secretstream_xchacha20poly1305_push(push, Buffer.from(text), null, sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)),
    takeHeader: (h: Buffer) => void (pull = sodium.crypto_secretstream_xchacha20poly1305_init_pull(h, sharedRx)),
    open(body: Buffer) {
      const result = sodium.crypto_secretstream_xchacha20poly1305_pull(pull!, body, null);
      return result ? { text: Buffer.from(result.message).toString(), tag: result.tag } : false;
    },
  };
}

describe('SDK end-to-end encryption (libsodium mode of the C SDK)', () => {
  before(async () => {
    await sodiumReady;
  });

  it('a dialer sealing with its client keys is read by a C-style hoster, and the hoster\'s answers are read back', () => {
    const mine = newKeyPair();
    const server = cSdkServer(mine.publicKey);
    const client = e2eeSession('client', mine, server.publicKey);
    assert.equal(client.header.length, 24);
    server.takeHeader(client.header);
    const sealed = client.seal(Buffer.from('hello over the overlay'));
    assert.equal(sealed.length, 'hello over the overlay'.length + 17);
    assert.deepEqual(server.open(sealed), { text: 'hello over the overlay', tag: sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE });
    assert.deepEqual(server.open(client.seal(Buffer.from('second'))), { text: 'second', tag: sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE });
    assert.equal(client.open(server.header), undefined);
    assert.equal(client.open(server.seal('answer'))!.toString(), 'answer');
  });

  it('two SDK ends (dialer client keys, hoster server keys) read each other', () => {
    const a = newKeyPair();
    const b = newKeyPair();
    const dialer = e2eeSession('client', a, b.publicKey);
    const hoster = e2eeSession('server', b, a.publicKey);
    hoster.open(dialer.header);
    dialer.open(hoster.header);
    assert.equal(hoster.open(dialer.seal(Buffer.from('ping')))!.toString(), 'ping');
    assert.equal(dialer.open(hoster.seal(Buffer.from('pong')))!.toString(), 'pong');
  });

  it('refuses a tampered message, a replayed one and one sealed for another connection, with CRYPTO_FAILED', () => {
    const mine = newKeyPair();
    const server = cSdkServer(mine.publicKey);
    const client = e2eeSession('client', mine, server.publicKey);
    client.open(server.header);
    const message = server.seal('payload');
    const tampered = Buffer.from(message);
    tampered[tampered.length - 1]! ^= 1;
    assert.throws(() => client.open(tampered), (e: SdkError) => e.code === 'CRYPTO_FAILED' && /does not authenticate/.test(e.message));
    // Positive control on a fresh pair: the untampered message reads.
    const again = newKeyPair();
    const server2 = cSdkServer(again.publicKey);
    const client2 = e2eeSession('client', again, server2.publicKey);
    client2.open(server2.header);
    const first = server2.seal('one');
    assert.equal(client2.open(first)!.toString(), 'one');
    assert.throws(() => client2.open(first), (e: SdkError) => e.code === 'CRYPTO_FAILED');
    const foreign = cSdkServer(newKeyPair().publicKey);
    const client3 = e2eeSession('client', newKeyPair(), foreign.publicKey);
    client3.open(foreign.header);
    assert.throws(() => client3.open(foreign.seal('not for you')), (e: SdkError) => e.code === 'CRYPTO_FAILED');
  });

  it('refuses a first message that is not a 24-byte header and a peer key that is not 32 bytes, saying which', () => {
    const mine = newKeyPair();
    const server = cSdkServer(mine.publicKey);
    const client = e2eeSession('client', mine, server.publicKey);
    assert.throws(() => client.open(Buffer.from('plain text, no header')), (e: SdkError) => e.code === 'CRYPTO_FAILED' && e.message === "the peer's first data is 21 bytes, not its 24-byte stream header");
    assert.throws(() => e2eeSession('client', mine, new Uint8Array(31)), (e: SdkError) => e.code === 'CRYPTO_FAILED' && e.message === "the peer's public key is 31 bytes, not 32");
  });
});
