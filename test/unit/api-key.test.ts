import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_LENGTH,
  digestApiKey,
  digestsMatch,
  generateApiKey,
  isInForce,
  isKeyPrefix,
  KEY_PREFIX_LENGTH,
  keyStanding,
  parseApiKey,
  retirementAt,
} from '../../core/domain/api-key';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API key format', () => {
  it('mints svc_ keys whose 12-character prefix names them and whose checksum verifies', () => {
    const { key, prefix, digest } = generateApiKey();

    expect(key).toMatch(/^svc_[0-9A-Za-z]{46}$/);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(prefix).toBe(key.slice(0, KEY_PREFIX_LENGTH));
    expect(isKeyPrefix(prefix)).toBe(true);
    expect(parseApiKey(key)).toEqual({ ok: true, key, prefix });
    expect(digestsMatch(digestApiKey(key), digest)).toBe(true);
  });

  it('never mints the same key twice in a large sample', () => {
    const keys = new Set(Array.from({ length: 2_000 }, () => generateApiKey().key));

    expect(keys.size).toBe(2_000);
  });

  it('refuses every single-character change of a valid key before any lookup', () => {
    const { key } = generateApiKey();
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: key.length - 1 }),
        fc.constantFrom(...BASE62),
        (index, replacement) => {
          fc.pre(key[index] !== replacement);
          const mistyped = key.slice(0, index) + replacement + key.slice(index + 1);

          expect(parseApiKey(mistyped).ok).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses anything that is not a key, and never throws', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^svc_[0-9A-Za-z]{46}$/)),
        (candidate) => {
          const parsed = parseApiKey(candidate);

          if (parsed.ok) expect(parsed.prefix).toBe(candidate.slice(0, 12));
          else expect(['malformed', 'checksum']).toContain(parsed.reason);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('tells a truncated key (malformed) from a mistyped one (checksum)', () => {
    const { key } = generateApiKey();
    const last = key.at(-1) === 'A' ? 'B' : 'A';

    expect(parseApiKey(key.slice(0, -1))).toEqual({ ok: false, reason: 'malformed' });
    expect(parseApiKey(key.slice(0, -1) + last)).toEqual({ ok: false, reason: 'checksum' });
    expect(parseApiKey(`ghp_${key.slice(4)}`)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('compares digests of different lengths without throwing', () => {
    expect(digestsMatch(Buffer.alloc(32), Buffer.alloc(31))).toBe(false);
    expect(digestsMatch(Buffer.alloc(32, 1), Buffer.alloc(32, 2))).toBe(false);
  });

  it('reads a key’s standing from its own stored state: a retiring key expires at its instant', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');

    expect(keyStanding({ state: 'active' }, now)).toBe('active');
    expect(keyStanding({ state: 'retiring', expiresAt: '2026-11-22T12:00:00.001Z' }, now)).toBe('retiring');
    expect(keyStanding({ state: 'retiring', expiresAt: '2026-11-22T12:00:00.000Z' }, now)).toBe('expired');
    expect(keyStanding({ state: 'revoked', expiresAt: '2026-11-22T13:00:00Z' }, now)).toBe('revoked');
    expect(keyStanding({ state: 'pending' }, now)).toBe('pending');
    expect(isInForce({ state: 'retiring', expiresAt: '2026-11-22T12:00:01Z' }, now)).toBe(true);
    expect(isInForce({ state: 'pending' }, now)).toBe(false);
    expect(isInForce({ state: 'superseded' }, now)).toBe(false);
  });

  it('never moves a retirement later: a second replacement ends a key at the earlier of the two', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');

    expect(retirementAt({}, now, 3_600_000)).toBe('2026-11-22T13:00:00.000Z');
    expect(retirementAt({ expiresAt: '2026-11-22T12:30:00.000Z' }, now, 3_600_000)).toBe(
      '2026-11-22T12:30:00.000Z',
    );
    expect(retirementAt({ expiresAt: '2026-11-23T12:00:00.000Z' }, now, 0)).toBe('2026-11-22T12:00:00.000Z');
  });
});
