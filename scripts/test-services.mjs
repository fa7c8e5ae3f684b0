// The Postgres and Redis that tests use: TEST_DATABASE_URL / TEST_REDIS_URL when set, otherwise
// the local defaults when they answer (else the test helper falls back to testcontainers).
import net from 'node:net';

const answers = (port) =>
  new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.setTimeout(1000, () => (s.destroy(), resolve(false)));
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** `env` with TEST_DATABASE_URL / TEST_REDIS_URL filled in where a local service answers. */
export async function withTestServices(env) {
  const out = { ...env };
  if (!out.TEST_DATABASE_URL && (await answers(5432)))
    out.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
  if (!out.TEST_REDIS_URL && (await answers(6379))) out.TEST_REDIS_URL = 'redis://127.0.0.1:6379';
  return out;
}
