import { generateKeyPairSync } from 'node:crypto';
import { Socket } from 'node:net';
import { createAlipayProvider } from './alipay';

const pair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

describe('the Alipay provider', () => {
  it('leaves net.Socket alone: sockets destroyed with one shared error do not throw', () => {
    const destroy = Socket.prototype.destroy;
    createAlipayProvider({
      appId: '2021000000000001',
      privateKey: pair().privateKey,
      alipayPublicKey: pair().publicKey,
      gateway: 'http://127.0.0.1:9/gateway.do',
      timeoutMs: 1000,
      toleranceSeconds: 300,
    });
    expect(Socket.prototype.destroy).toBe(destroy);
    const err = new Error('agent destroyed');
    const sockets = [new Socket(), new Socket()];
    for (const s of sockets) s.on('error', () => {});
    expect(() => {
      for (const s of sockets) s.destroy(err);
    }).not.toThrow();
  });

  it('accepts keys as PEM (PKCS#8 or PKCS#1) or bare base64', () => {
    const { privateKey, publicKey } = pair();
    const bare = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
    const pkcs1 = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    for (const [priv, pub] of [
      [privateKey, publicKey],
      [pkcs1.privateKey, pkcs1.publicKey],
      [bare(privateKey), bare(publicKey)],
      [bare(pkcs1.privateKey), bare(pkcs1.publicKey)],
    ] as const) {
      expect(() =>
        createAlipayProvider({
          appId: '2021000000000001',
          privateKey: priv,
          alipayPublicKey: pub,
          gateway: 'http://127.0.0.1:9/gateway.do',
          timeoutMs: 1000,
          toleranceSeconds: 300,
        }),
      ).not.toThrow();
    }
  });
});
