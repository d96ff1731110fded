import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RateWindowState } from '../../lambdas/domain/rate-limit';
import {
  decideRateLimit,
  decodeAdmissions,
  EMPTY_RATE_WINDOW,
  encodeAdmissions,
  rateLimitHeaders,
} from '../../lambdas/domain/rate-limit';

function admitMany(state: RateWindowState, times: readonly number[]) {
  let current = state;
  const decisions = times.map((at) => {
    const decision = decideRateLimit(current, at);
    if (decision.admitted) current = decision.next;
    return decision;
  });
  return { state: current, decisions };
}

describe('exact rolling-window rate limit', () => {
  it('admits exactly 120 requests in a window and refuses the 121st', () => {
    const { decisions } = admitMany(
      EMPTY_RATE_WINDOW,
      Array.from({ length: 121 }, (_, i) => 1_000 + i),
    );

    expect(decisions.filter((d) => d.admitted)).toHaveLength(120);
    expect(decisions[119]?.remaining).toBe(0);
    expect(decisions[120]?.admitted).toBe(false);
  });

  it('frees a slot exactly when the oldest request is 60 s old, not a millisecond before', () => {
    const { state } = admitMany(
      EMPTY_RATE_WINDOW,
      Array.from({ length: 120 }, () => 0),
    );

    expect(decideRateLimit(state, 59_999)).toMatchObject({ admitted: false, resetSeconds: 1 });
    expect(decideRateLimit(state, 60_000)).toMatchObject({ admitted: true, remaining: 119 });
  });

  it('is rolling, not fixed: requests spread over the window keep counting until each ages out', () => {
    const times = Array.from({ length: 120 }, (_, i) => i * 500); // 0 .. 59.5 s
    const { state } = admitMany(EMPTY_RATE_WINDOW, times);

    expect(decideRateLimit(state, 59_999).admitted).toBe(false);
    const first = decideRateLimit(state, 60_000);
    expect(first.admitted).toBe(true);
    expect(decideRateLimit(first.next, 60_001).admitted).toBe(false);
    expect(decideRateLimit(first.next, 60_500).admitted).toBe(true);
  });

  it('never admits more than 120 in any 60 s span, whatever the arrival pattern', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 400 }), (gaps) => {
        let elapsed = 0;
        const times = gaps.map((gap) => {
          elapsed += gap;
          return elapsed;
        });
        const { decisions } = admitMany(EMPTY_RATE_WINDOW, times);
        const admitted = times.filter((_, i) => decisions[i]?.admitted);
        for (const start of admitted) {
          expect(admitted.filter((at) => at >= start && at < start + 60_000).length).toBeLessThanOrEqual(120);
        }
        // ...and never refuses while fewer than 120 were admitted in the trailing 60 s.
        times.forEach((at, i) => {
          const before = times.slice(0, i).filter((t, j) => decisions[j]?.admitted && t > at - 60_000).length;
          expect(decisions[i]?.admitted).toBe(before < 120);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('packs the log into 4 bytes per entry and reads it back exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
        fc.array(fc.integer({ min: 0, max: 59_999 }), { maxLength: 120 }),
        (base, offsets) => {
          const times = offsets.map((offset) => base + offset).sort((a, b) => a - b);
          const { base: stored, packed } = encodeAdmissions(times);

          expect(packed.byteLength).toBe(times.length * 4);
          expect(decodeAdmissions(stored, packed)).toEqual(times);
        },
      ),
    );
  });

  it('describes the window in IETF and X-RateLimit headers, with Retry-After only when refused', () => {
    const { state } = admitMany(
      EMPTY_RATE_WINDOW,
      Array.from({ length: 120 }, () => 10_000),
    );
    const refused = decideRateLimit(state, 40_000);
    const admitted = decideRateLimit(EMPTY_RATE_WINDOW, 40_000);

    expect(rateLimitHeaders(refused)).toEqual({
      'RateLimit-Policy': '"per-key";q=120;w=60',
      RateLimit: '"per-key";r=0;t=30',
      'X-RateLimit-Limit': '120',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '70',
      'Retry-After': '30',
    });
    expect(rateLimitHeaders(admitted)).not.toHaveProperty('Retry-After');
    expect(rateLimitHeaders(admitted).RateLimit).toBe('"per-key";r=119;t=60');
  });
});
