import { describe, expect, it } from 'vitest';
import { hashPassword, parsePasswordHash, verifyPassword } from './password-hash';

describe('password hashes', () => {
  it('verify the password they were made from, and nothing else', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('a password typed in another Unicode form (NFD) is the same password', async () => {
    const stored = await hashPassword('crème brûlée 2024');
    expect(await verifyPassword('crème brûlée 2024'.normalize('NFD'), stored)).toBe(true);
  });

  it('keep their own cost, so raising the default later keeps older hashes valid', async () => {
    const stored = await hashPassword('correct horse battery', { ln: 12, r: 8, p: 1 });
    expect(stored.startsWith('$scrypt$ln=12,r=8,p=1$')).toBe(true);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
  });

  it('refuse a damaged or tampered hash instead of reading it as a mismatch (and never a cost that would exhaust memory)', async () => {
    const stored = await hashPassword('correct horse battery');
    await expect(verifyPassword('x', 'plain text password')).rejects.toThrow(/damaged/);
    await expect(verifyPassword('x', stored.replace('ln=15', 'ln=30'))).rejects.toThrow(/damaged/);
    expect(parsePasswordHash(stored.replace('p=3', 'p=99'))).toBeUndefined();
    expect(parsePasswordHash(stored)?.cost).toEqual({ ln: 15, r: 8, p: 3 });
  });
});
