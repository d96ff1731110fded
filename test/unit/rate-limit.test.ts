import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RateDecision } from '../../core/domain/rate-limit';
import {
  MAX_READ_WAIT_MS,
  observe,
  RATE_LIMIT,
  rateDecision,
  rateLimitHeaders,
  readBeforeWriting,
  roomIn,
} from '../../core/domain/rate-limit';
import { createRateLimiter } from '../../lambdas/data/rate-windows';
import { awsError } from '../support/events';
import { expectExactWindows, fakeRateWindowTable, virtualClock } from '../support/rate-window-table';

const { limit, windowMs } = RATE_LIMIT;
const START = Date.UTC(2026, 10, 22, 12);
const dynamo = mockClient(DynamoDBDocumentClient);

/** A key's stored times as instants (the store keeps them from the window epoch). */
const WINDOW_EPOCH_MS = Date.UTC(2026, 0, 1);

beforeEach(() => {
  dynamo.reset();
});

describe('the window: the pure rules', () => {
  it('refuses only when the view holds `limit` busy times, and makes room only once the list is full', () => {
    const busy = Array.from({ length: limit }, () => START);

    expect(roomIn(busy, START)).toBeUndefined();
    expect(roomIn(busy.slice(1), START)).toEqual({ expired: [] });
    // Full, but two times are a window old: the admission removes them, and only them.
    const mixed = busy.map((time, index) => (index === 3 || index === 7 ? START - windowMs : time));
    expect(roomIn(mixed, START)).toEqual({ expired: [3, 7] });
    // Not full: old times stay until the room is needed.
    expect(roomIn([START - windowMs, START], START)).toEqual({ expired: [] });
  });

  it('frees a time exactly 60 s after its admission, not a millisecond before', () => {
    const full = Array.from({ length: limit }, () => START);

    expect(roomIn(full, START + windowMs - 1)).toBeUndefined();
    expect(roomIn(full, START + windowMs)?.expired).toHaveLength(limit);
    expect(rateDecision(full, START + windowMs - 1, false)).toMatchObject({ remaining: 0, resetSeconds: 1 });
  });

  it('reads the pace of other instances’ admissions from two answers: the busy times added, less its own', () => {
    const first = observe(undefined, { times: [START], admitted: true }, START - 10, START);
    const later = Array.from({ length: 61 }, (_, index) => START + index * 10);
    const second = observe(first, { times: [START, ...later], admitted: true }, START + 990, START + 1_000);

    expect(first.othersPerMs).toBeUndefined();
    expect(second).toMatchObject({ atMs: START + 1_000, callMs: 10 });
    expect(second.othersPerMs).toBeCloseTo(60 / 1_000);
  });

  it('reads before writing only when the observed pace says the view’s room is probably taken', () => {
    // 62 busy times seen (room 58), others admitting 60 per second, the last call 200 ms long.
    const view = {
      times: Array.from({ length: 62 }, () => START),
      atMs: START,
      callMs: 200,
      othersPerMs: 60 / 1_000,
    };

    // Taken since the view: read now.
    expect(readBeforeWriting(view, START + 1_000)).toEqual({ waitMs: 0 });
    // Not yet, and the writes on their way take less than twice the room: write.
    expect(readBeforeWriting(view, START + 100)).toBeUndefined();
    // Writes on their way (as many as landed during its last call) take twice the room: wait for them, then read.
    expect(readBeforeWriting({ ...view, callMs: 2_000 }, START)).toEqual({ waitMs: MAX_READ_WAIT_MS });
    expect(readBeforeWriting({ ...view, callMs: 900, othersPerMs: 0.13 }, START)).toEqual({ waitMs: 900 });
    // No pace yet (a single answer), or a pace older than a window: write.
    expect(readBeforeWriting({ ...view, othersPerMs: undefined }, START + 1_000)).toBeUndefined();
    expect(readBeforeWriting(view, START + windowMs)).toBeUndefined();
  });

  it('describes the window in IETF and X-RateLimit headers, with Retry-After only when refused', () => {
    const full = Array.from({ length: limit }, () => 10_000);
    const refused = rateDecision(full, 40_000, false);
    const admitted = rateDecision([40_000], 40_000, true);

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
  it('admits a key’s first request with the one write that creates its window, and no failed condition', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);

    const decision = await createRateLimiter({ clock: clock.now }).consume('svc_NewKey00');

    expect(decision).toMatchObject({ admitted: true, remaining: limit - 1 });
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(table.writes).toMatchObject({ admitted: 1, refused: 0 });
    expect(table.storedTimes('svc_NewKey00')).toEqual([START - WINDOW_EPOCH_MS]);
  });

  it('admits a cold instance with one conditional write and no read, learning the stored times', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const earlier = createRateLimiter({ clock: clock.now });
    for (let i = 0; i < 30; i++) await earlier.consume('svc_Cold0001');
    const cold = createRateLimiter({ clock: clock.now });
    dynamo.resetHistory();

    const decision = await cold.consume('svc_Cold0001');

    expect(decision).toMatchObject({ admitted: true, remaining: limit - 31 });
    expect(dynamo.calls()).toHaveLength(1);
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input.ConditionExpression).toBe(
      'attribute_not_exists(#admitted) OR size(#admitted) < :limit',
    );
    expect(table.writes).toMatchObject({ admitted: 31, refused: 0 });
  });

  it('admits a fresh key’s requests from many instances at once, each with one write and none refused', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const instances = Array.from({ length: 50 }, () => createRateLimiter({ clock: clock.now }));

    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, index) => instances[index % instances.length]?.consume('svc_NewKey01')),
    );

    expect(decisions.filter((decision) => decision?.admitted)).toHaveLength(100);
    expect(table.writes).toMatchObject({ admitted: 100, refused: 0 });
    // Each admission saw every earlier one: the remaining counts are 119 down to 20, each once.
    expect(decisions.map((decision) => decision?.remaining).sort((a = 0, b = 0) => b - a)).toEqual(
      Array.from({ length: 100 }, (_, index) => limit - 1 - index),
    );
  });

  it('refuses from its own view, with no call at all, once `limit` times are busy', async () => {
    fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
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
    const clock = virtualClock(START);
    const busy = createRateLimiter({ clock: clock.now });
    for (let i = 0; i < limit; i++) await busy.consume('svc_Full0002');
    const cold = createRateLimiter({ clock: clock.now });

    const decision = await cold.consume('svc_Full0002');

    expect(decision).toMatchObject({ admitted: false, remaining: 0 });
    expect(table.writes.refusals).toEqual(['full']);
  });

  it('makes room in the admitting write by removing the times a window old, and only those', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const limiter = createRateLimiter({ clock: clock.now });
    for (let i = 0; i < 90; i++) await limiter.consume('svc_Expire01');
    clock.advance(30_000);
    for (let i = 0; i < 30; i++) await limiter.consume('svc_Expire01');
    clock.advance(30_000); // the first 90 are now a window old, the last 30 are 30 s old
    dynamo.resetHistory();

    const decision = await limiter.consume('svc_Expire01');

    expect(decision).toMatchObject({ admitted: true, remaining: limit - 31, resetSeconds: 30 });
    expect(dynamo.calls()).toHaveLength(1);
    expect(table.storedTimes('svc_Expire01')).toEqual([
      ...Array.from({ length: 30 }, () => START + 30_000 - WINDOW_EPOCH_MS),
      START + 60_000 - WINDOW_EPOCH_MS,
    ]);
    expect(table.writes).toMatchObject({ refused: 0, removed: 90 });
  });

  it('removes at most 100 times in one write (DynamoDB’s limits on an expression)', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const limiter = createRateLimiter({ clock: clock.now });
    for (let i = 0; i < limit; i++) await limiter.consume('svc_Expire03');
    clock.advance(windowMs);

    const decision = await limiter.consume('svc_Expire03');

    expect(decision).toMatchObject({ admitted: true, remaining: limit - 1 });
    expect(table.writes).toMatchObject({ refused: 0, removed: 100 });
    expect(table.storedTimes('svc_Expire03')).toHaveLength(limit - 100 + 1);
  });

  it('after another instance made the room first, appends from the list the failed write returned', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const [first, second] = [
      createRateLimiter({ clock: clock.now }),
      createRateLimiter({ clock: clock.now }),
    ];
    for (let i = 0; i < limit; i++) await first.consume('svc_Expire02');
    await second.consume('svc_Expire02'); // refused: its view is the full list too
    clock.advance(windowMs);
    dynamo.resetHistory();

    const decisions = await Promise.all([first.consume('svc_Expire02'), second.consume('svc_Expire02')]);

    expect(decisions.map((decision) => decision.admitted)).toEqual([true, true]);
    expect(table.writes.refusals).toEqual(['full', 'removed-meanwhile']);
    // 100 of the 120 expired times removed (the most one write removes), and the two admissions.
    expect(table.storedTimes('svc_Expire02')).toHaveLength(limit - 100 + 2);
    expect(dynamo.calls()).toHaveLength(3);
  });

  it('counts a list longer than the limit (the limit was lowered) by its busy times', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const policy = { limit: 5, windowMs };
    const limiter = createRateLimiter({ clock: clock.now, policy });
    const wide = createRateLimiter({ clock: clock.now, policy: { limit: 8, windowMs } });
    for (let i = 0; i < 4; i++) await wide.consume('svc_Lowered1');
    clock.advance(windowMs);
    for (let i = 0; i < 4; i++) await wide.consume('svc_Lowered1'); // 8 stored, 4 of them a window old

    const admitted = await limiter.consume('svc_Lowered1');
    const refused = await limiter.consume('svc_Lowered1');

    expect(admitted).toMatchObject({ admitted: true, remaining: 0 });
    expect(refused).toMatchObject({ admitted: false, remaining: 0 });
    expect(table.storedTimes('svc_Lowered1')).toHaveLength(5);
  });

  it('reads instead of writing when the pace it observed says others have filled the window since its view', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const [watcher, others] = [
      createRateLimiter({ clock: clock.now }),
      createRateLimiter({ clock: clock.now }),
    ];
    await watcher.consume('svc_Paced001');
    clock.advance(500);
    for (let i = 0; i < 60; i++) await others.consume('svc_Paced001');
    clock.advance(500);
    await watcher.consume('svc_Paced001'); // 62 busy: room 58, others at 60 per second
    clock.advance(500);
    for (let i = 0; i < 58; i++) await others.consume('svc_Paced001'); // full
    clock.advance(100);
    dynamo.resetHistory();

    const early = await others.consume('svc_Paced001'); // refused from its own view: no call
    clock.advance(900); // 60 per second over 1 s: the watcher's room is probably taken
    const refused = await watcher.consume('svc_Paced001');

    expect(early.admitted).toBe(false);
    expect(refused).toMatchObject({ admitted: false, remaining: 0 });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(table.writes).toMatchObject({ reads: 1, refused: 0 });
  });

  it('after a read that shows room, admits with one write and reads no more for that request', async () => {
    const table = fakeRateWindowTable(dynamo);
    const clock = virtualClock(START);
    const [watcher, others] = [
      createRateLimiter({ clock: clock.now }),
      createRateLimiter({ clock: clock.now }),
    ];
    await watcher.consume('svc_Paced002');
    clock.advance(500);
    for (let i = 0; i < 60; i++) await others.consume('svc_Paced002');
    clock.advance(500);
    await watcher.consume('svc_Paced002'); // room 58, others at 60 per second
    clock.advance(1_000); // ...but they stopped: the room is still there
    dynamo.resetHistory();

    const admitted = await watcher.consume('svc_Paced002');

    expect(admitted).toMatchObject({ admitted: true, remaining: limit - 63 });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(table.writes.refused).toBe(0);
  });

  it('passes a throttled write on as an error (a 503 upstream), never as a refusal', async () => {
    dynamo.on(UpdateCommand).rejects(awsError('ProvisionedThroughputExceededException'));

    await expect(createRateLimiter().consume('svc_Throttle')).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
  });

  it('is exact for any number of instances racing in any order, never fails, and wastes no write while the window has room', async () => {
    let conflicts = 0;
    let refusals = 0;
    let removals = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.record({
            advanceMs: fc.integer({ min: 0, max: 40_000 }),
            requests: fc.integer({ min: 1, max: 90 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.integer(),
        async (instanceCount, batches, seed) => {
          dynamo.reset();
          const table = fakeRateWindowTable(dynamo);
          const clock = virtualClock(START);
          let state = seed;
          const random = () => {
            state = (Math.imul(state, 1_103_515_245) + 12_345) | 0;
            return ((state >>> 0) % 1_000_000) / 1_000_000;
          };
          const limiters = Array.from({ length: instanceCount }, () =>
            createRateLimiter({ clock: clock.now }),
          );
          const outcomes: { atMs: number; admitted: boolean }[] = [];
          let mayHaveFilled = false;
          for (const batch of batches) {
            clock.advance(batch.advanceMs);
            const storedBefore = table.storedTimes('svc_Racing01').length;
            const refusedBefore = table.writes.refused;
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
            const stored = table.storedTimes('svc_Racing01').length;
            expect(stored).toBeLessThanOrEqual(limit);
            // Until the list may have filled, admissions from any number of instances never collide:
            // a batch that fits in the room the list had costs one write per request, none refused.
            // (Once it filled, an instance whose view still shows it full may try to remove times
            // another instance already removed: a failed write, though the list has room again.)
            if (!mayHaveFilled && storedBefore + batch.requests <= limit)
              expect(table.writes.refused - refusedBefore).toBe(0);
            mayHaveFilled ||= storedBefore + batch.requests >= limit;
          }
          conflicts += table.writes.refused;
          removals += table.writes.removed;
          refusals += outcomes.filter((outcome) => !outcome.admitted).length;
          expectExactWindows(outcomes, { limit, windowMs });
        },
      ),
      { numRuns: 60 },
    );
    // The races above went through the conflict path, filled windows and emptied them, not around them.
    expect(conflicts).toBeGreaterThan(0);
    expect(refusals).toBeGreaterThan(0);
    expect(removals).toBeGreaterThan(0);
  });
});
