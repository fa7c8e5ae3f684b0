import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../log';
import { createMailer, mailFileName } from './mailer';

const logger = createLogger({ service: 'mail-test', level: 'silent' });

describe('the development mailer', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(mkdtempSync(path.join(tmpdir(), 'mg-mail-')), 'mail');
  });
  afterEach(() => rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('writes each message to a file of its own, named by time, kind and recipient, readable as text', async () => {
    const mailer = createMailer({ from: 'mediagate <no-reply@mediagate.local>', logger, dir });
    const code = {
      to: 'alice@example.com',
      kind: 'signup',
      subject: 'Your code: 123456',
      text: 'Code 123456\n',
    };
    // the same message twice at once: two files, none overwritten
    await Promise.all([mailer.send(code), mailer.send(code)]);
    await mailer.send({ to: 'bob@example.com', subject: 'No kind', text: 'hello' });
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    const signups = files.filter((f) => f.includes('-signup-alice@example.com'));
    expect(signups).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[\w@.+-]+\.eml$/);
    expect(files.some((f) => f.endsWith('-mail-bob@example.com.eml'))).toBe(true);
    const eml = readFileSync(path.join(dir, signups[0]!), 'utf8');
    expect(eml).toContain('To: alice@example.com\r\n');
    expect(eml).toContain('Subject: Your code: 123456\r\n');
    expect(eml).toMatch(/\r\n\r\nCode 123456\n$/);
    // it holds codes: the owner's alone
    expect(statSync(path.join(dir, signups[0]!)).mode & 0o077).toBe(0);
    mailer.close();
  });

  it('writes no file without a directory, and names files safely', async () => {
    const mailer = createMailer({ from: 'x@y', logger });
    await mailer.send({ to: 'a@b.c', subject: 's', text: 't' });
    expect(() => readdirSync(dir)).toThrow();
    const name = mailFileName(
      { to: '../../etc/passwd\n@x', kind: 'a/b', subject: 's', text: 't' },
      new Date('2026-11-27T15:30:00Z'),
    );
    expect(name).toBe('2026-11-27T15-30-00.000Z-a_b-.._.._etc_passwd_@x.eml');
    expect(name).not.toContain('/');
  });
});
