import { createHmac } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSecretFile, SESSION_MAX_AGE_SECONDS, secretFilePath, sessionSecret, signSessionToken, verifySessionToken } from './session-token';

const secret = Buffer.from('s'.repeat(40));

describe('session tokens', () => {
  it('name the operator until they expire', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const token = signSessionToken({ operatorId: 'op-1', sessionId: 'session-1', now, secret });
    expect(verifySessionToken(token, { now, secret })).toEqual({
      operatorId: 'op-1',
      sessionId: 'session-1',
      expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_SECONDS * 1000),
    });
    const later = new Date(now.getTime() + SESSION_MAX_AGE_SECONDS * 1000);
    expect(verifySessionToken(token, { now: later, secret })).toBeUndefined();
  });

  it('are refused when changed, signed with another secret, or not tokens at all', () => {
    const token = signSessionToken({ operatorId: 'op-1', sessionId: 'session-1', secret });
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ v: 2, sub: 'op-2', sid: 'session-1', exp: 9_999_999_999 })).toString('base64url');
    expect(verifySessionToken(`${forged}.${mac}`, { secret })).toBeUndefined();
    expect(verifySessionToken(token, { secret: Buffer.from('t'.repeat(40)) })).toBeUndefined();
    for (const junk of [undefined, '', 'abc', `${payload}.`, `${payload}.${mac}.x`, 'x'.repeat(5000)])
      expect(verifySessionToken(junk, { secret })).toBeUndefined();
  });

  it('of version 1 (no session id, so they could not be signed out) are refused even when correctly signed', () => {
    const payload = Buffer.from(JSON.stringify({ v: 1, sub: 'op-1', exp: 9_999_999_999 })).toString('base64url');
    const mac = createHmac('sha256', secret).update(payload).digest('base64url');
    expect(verifySessionToken(`${payload}.${mac}`, { secret })).toBeUndefined();
  });

  it('are signed with GNL_SESSION_SECRET, or with a secret generated once beside the data folder (mode 0600)', () => {
    expect(() => sessionSecret({ GNL_SESSION_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(sessionSecret({ GNL_SESSION_SECRET: 'x'.repeat(32) }).toString()).toBe('x'.repeat(32));
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-secret-')), 'data');
    const file = secretFilePath({ GNL_DATA_DIR: dataDir });
    expect(file).toBe(`${dataDir}.session-secret`);
    const key = Symbol.for('gnl.studio.sessionSecret');
    (globalThis as Record<symbol, unknown>)[key] = undefined;
    const first = sessionSecret({ GNL_DATA_DIR: dataDir });
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.toString());
    (globalThis as Record<symbol, unknown>)[key] = undefined;
    expect(sessionSecret({ GNL_DATA_DIR: dataDir }).equals(first)).toBe(true);
    (globalThis as Record<symbol, unknown>)[key] = undefined;
  });
});

describe('session token signatures', () => {
  it('a signature differing in its last character, or cut short, or padded, is refused', () => {
    const token = signSessionToken({ operatorId: 'op-1', sessionId: 'session-1', secret });
    const [payload, mac] = token.split('.') as [string, string];
    const last = mac.at(-1) === 'A' ? 'B' : 'A';
    for (const bad of [`${mac.slice(0, -1)}${last}`, mac.slice(0, -1), `${mac}A`, `${mac}==`])
      expect(verifySessionToken(`${payload}.${bad}`, { secret }), bad).toBeUndefined();
    expect(verifySessionToken(`${payload}.${mac}`, { secret })?.operatorId).toBe('op-1');
  });
});

describe('the session secret file (issue 34, finding 4)', () => {
  it('made readable by others (chmod 644): tightened to 0600 at start, and said', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gnl-secret-'));
    const file = path.join(dir, 'data.session-secret');
    writeFileSync(file, `${'k'.repeat(43)}\n`);
    chmodSync(file, 0o644);
    const lines: string[] = [];
    checkSecretFile(file, (line) => lines.push(line));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(lines.join('\n')).toMatch(/was readable by others \(mode 644\): made 0600/);
    // Already private: nothing to say.
    const quiet: string[] = [];
    checkSecretFile(file, (line) => quiet.push(line));
    expect(quiet).toEqual([]);
  });

  it('in a folder everyone may write to (no sticky bit): said', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gnl-secret-open-'));
    chmodSync(dir, 0o777);
    const file = path.join(dir, 'data.session-secret');
    writeFileSync(file, `${'k'.repeat(43)}\n`, { mode: 0o600 });
    const lines: string[] = [];
    checkSecretFile(file, (line) => lines.push(line));
    expect(lines.join('\n')).toMatch(/is writable by everyone/);
  });
});
