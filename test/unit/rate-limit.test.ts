import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RateDecision } from '../../core/domain/rate-limit';
import {
  chooseFreeSlot,
  emptySlots,
  RATE_LIMIT,
  rateDecision,
  rateLimitHeaders,
} from '../../core/domain/rate-limit';
import { createRateLimiter } from '../../lambdas/data/rate-windows';
import { awsError } from '../support/events';
import { fakeRateWindowTable } from '../support/rate-window-table';

const { limit, windowMs } = RATE_LIMIT;
const START = Date.UTC(2026, 10, 22, 12);
const dynamo = mockClient(DynamoDBDocumentClient);

/** A clock the test moves. */
function virtualClock(startMs = START) {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

beforeEach(() => {
  dynamo.reset();
});

describe('slots: the pure rules', () => {
  it('chooses only among free slots, and none when all are busy', () => {
    const slots = emptySlots().map((_, index) => (index === 3 ? 0 : START));

    expect(chooseFreeSlot(slots, START, Math.random)).toBe(3);
    expect(
      chooseFreeSlot(
        slots.map(() => START),
        START,
        Math.random,
      ),
    ).toBeUndefined();
  });

  it('frees a slot exactly 60 s after its admission, not a millisecond before', () => {
    const full = emptySlots().map(() => START);

    expect(chooseFreeSlot(full, START + windowMs - 1, Math.random)).toBeUndefined();
    expect(chooseFreeSlot(full, START + windowMs, Math.random)).toBeDefined();
    expect(rateDecision(full, START + windowMs - 1, false)).toMatchObject({ remaining: 0, resetSeconds: 1 });
  });

  it('describes the window in IETF and X-RateLimit headers, with Retry-After only when refused', () => {
    const full = emptySlots().map(() => 10_000);
    const refused = rateDecision(full, 40_000, false);
    const admitted = rateDecision(
      emptySlots().map((_, index) => (index === 0 ? 40_000 : 0)),
      40_000,
      true,
    );

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

describe('rate limiter against a conditional store', () => {
  it('admits a cold instance with one conditional write and no read, learning the stored slots', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock();
    const earlier = createRateLimiter({ clock: clock.now, random: () => 0 }); // slots 0 to 29
    for (let i = 0; i < 30; i++) await earlier.consume('svc_Cold0001');
    const cold = createRateLimiter({ clock: clock.now, random: () => 0.999 }); // slot 119
    dynamo.resetHistory();

    const decision = await cold.consume('svc_Cold0001');

    expect(decision).toMatchObject({ admitted: true, remaining: limit - 31 });
    expect(dynamo.calls()).toHaveLength(1);
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input.ConditionExpression).toMatch(
      /^size\(#slots\) = :limit AND #slots\[\d+\] <= :freeBefore$/,
    );
    expect(table.writes).toMatchObject({ created: 1, claimed: 30 });
  });

  it('after a failed condition, retries a slot that the returned item shows free', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock();
    const other = createRateLimiter({ clock: clock.now, random: () => 0 });
    await other.consume('svc_Conflict'); // slot 0 taken by another instance
    // Always the first slot it believes free: slot 0 blindly, then the first free in what it learnt.
    const stale = createRateLimiter({ clock: clock.now, random: () => 0 });
    const refusedBefore = table.writes.refused;
    dynamo.resetHistory();

    const decision = await stale.consume('svc_Conflict');

    const attempts = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input.UpdateExpression);
    expect(attempts).toEqual(['SET #slots[0] = :now', 'SET #slots[1] = :now']);
    expect(decision).toMatchObject({ admitted: true, remaining: limit - 2 });
    expect(table.writes.refused - refusedBefore).toBe(1);
  });

  it('refuses from its own view, with no call at all, once every slot is busy', async () => {
    fakeRateWindowTable(dynamo);
    const clock = virtualClock();
    const limiter = createRateLimiter({ clock: clock.now });
    for (let i = 0; i < limit; i++) expect((await limiter.consume('svc_Full0001')).admitted).toBe(true);
    clock.advance(20_000);
    dynamo.resetHistory();

    const decision = await limiter.consume('svc_Full0001');

    expect(decision).toMatchObject({ admitted: false, remaining: 0, resetSeconds: 40 });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('refuses an instance that has never seen the key only after the store shows it full', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock();
    const busy = createRateLimiter({ clock: clock.now });
    for (let i = 0; i < limit; i++) await busy.consume('svc_Full0002');
    const cold = createRateLimiter({ clock: clock.now });
    const refusedBefore = table.writes.refused;

    const decision = await cold.consume('svc_Full0002');

    expect(decision).toMatchObject({ admitted: false, remaining: 0 });
    expect(table.writes.refused - refusedBefore).toBe(1);
  });

  it('creates the window on a key’s first request; two instances doing so at once both admit', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock();
    const [a, b] = [createRateLimiter({ clock: clock.now }), createRateLimiter({ clock: clock.now })];

    const decisions = await Promise.all([a.consume('svc_NewKey01'), b.consume('svc_NewKey01')]);

    expect(decisions.map((decision) => decision.admitted)).toEqual([true, true]);
    expect(table.storedSlots('svc_NewKey01').filter((slot) => slot > 0)).toHaveLength(2);
    expect(table.writes.created).toBe(1);
  });

  it('replaces a window of another size, keeping the times it holds', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock();
    const busyAt = START - Date.UTC(2026, 0, 1); // stored form: ms since the window epoch
    table.items.set('RATELIMIT#svc_Resized', {
      PK: 'RATELIMIT#svc_Resized',
      SK: 'RATELIMIT',
      slots: Array.from({ length: 50 }, () => busyAt),
    });
    const limiter = createRateLimiter({ clock: clock.now });

    const resized = await limiter.consume('svc_Resized');

    expect(resized).toMatchObject({ admitted: true, remaining: limit - 51 });
    expect(table.storedSlots('svc_Resized')).toHaveLength(limit);
  });

  it('passes a throttled write on as an error (a 503 upstream), never as a refusal', async () => {
    dynamo.on(UpdateCommand).rejects(awsError('ProvisionedThroughputExceededException'));

    await expect(createRateLimiter().consume('svc_Throttle')).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
  });

  it('is exact for any number of instances racing in any order, and never fails', async () => {
    let conflicts = 0;
    let refusals = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.record({
            advanceMs: fc.integer({ min: 0, max: 20_000 }),
            requests: fc.integer({ min: 1, max: 90 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.integer(),
        async (instanceCount, batches, seed) => {
          dynamo.reset();
          const table = fakeRateWindowTable(dynamo);
          const clock = virtualClock();
          let state = seed;
          const random = () => {
            state = (Math.imul(state, 1_103_515_245) + 12_345) | 0;
            return ((state >>> 0) % 1_000_000) / 1_000_000;
          };
          const limiters = Array.from({ length: instanceCount }, () =>
            createRateLimiter({ clock: clock.now, random }),
          );
          const outcomes: { atMs: number; admitted: boolean }[] = [];
          for (const batch of batches) {
            clock.advance(batch.advanceMs);
            // Each request of the batch on an instance chosen at random, all in flight at once.
            const decisions: RateDecision[] = await Promise.all(
              Array.from({ length: batch.requests }, () => {
                const limiter = limiters[Math.floor(random() * instanceCount)] ?? limiters[0];
                if (!limiter) throw new Error('no limiter');
                return limiter.consume('svc_Racing01');
              }),
            );
            outcomes.push(
              ...decisions.map((decision) => ({ atMs: decision.atMs, admitted: decision.admitted })),
            );
          }
          conflicts += table.writes.refused;
          refusals += outcomes.filter((outcome) => !outcome.admitted).length;
          const admittedAt = outcomes.filter((outcome) => outcome.admitted).map((outcome) => outcome.atMs);
          const inWindow = (atMs: number) =>
            admittedAt.filter((at) => at > atMs - windowMs && at <= atMs).length;
          for (const at of admittedAt) expect(inWindow(at)).toBeLessThanOrEqual(limit);
          for (const outcome of outcomes.filter((candidate) => !candidate.admitted))
            expect(inWindow(outcome.atMs)).toBe(limit);
        },
      ),
      { numRuns: 60 },
    );
    // The races above went through the conflict path and filled windows, not around them.
    expect(conflicts).toBeGreaterThan(0);
    expect(refusals).toBeGreaterThan(0);
  });
});
