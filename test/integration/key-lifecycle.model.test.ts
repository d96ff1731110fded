import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, inject, it, vi } from 'vitest';
import { createTableInput } from '../../core/contract/table-definition';
import { DEFAULT_CATALOG } from '../../core/domain/catalog';
import { secretArnVariable } from '../../core/service-secrets';
import { forgetCachedKeys } from '../../lambdas/api/authenticate';
import { useServiceEnvironment } from '../../lambdas/common/config';
import { loadServiceKey } from '../../lambdas/common/service-secrets';
import { ensureCatalog } from '../../lambdas/data/catalog';
import { dynamoDb } from '../../lambdas/data/db';
import { tally } from '../support/key-lifecycle-model/invariants';
import {
  Approve,
  Prune,
  Reveal,
  Revoke,
  Rotate,
  SetAgreement,
  Suspend,
} from '../support/key-lifecycle-model/key-commands';
import {
  AdvanceClock,
  CreateLink,
  OpenAndProvision,
  OpenLink,
  Provision,
  TtlSweep,
} from '../support/key-lifecycle-model/link-commands';
import {
  type Command,
  DAY,
  HOUR,
  MINUTE,
  MODEL_EPOCH,
  MODEL_TABLE,
  type Model,
  type Real,
} from '../support/key-lifecycle-model/model';

/*
 * A model-based test of what decides who gets in: keys, reveals, activation links and host
 * sessions, driven by random sequences of the real operator commands and the real page and
 * authorizer handlers, on DynamoDB Local, while a clock moves (minutes to a month at a time) and
 * a TTL sweep deletes every item whose `ttl` has passed, as DynamoDB may at any time after it.
 * After every step the real system is compared with a small model: exactly the keys the model
 * holds in force authenticate, with the model's scopes; a key out of force never comes back; a
 * dead key's reveal never shows a key; a used link never provisions again; a session never
 * outlives its claims; the usage plan keeps the API Gateway key of every key that works or may.
 *
 * It has a table of its own (the sweep deletes by time, which would disturb other files' data),
 * and fakes only `Date`: timers, the SDK and DynamoDB Local run for real.
 *
 * MODEL_RUNS (default 50) sets how many sequences; MODEL_SEED replays one (fast-check prints
 * the seed, the path and the shortest failing sequence when a run fails).
 */

/** The commands, some more than once so that they come up more often. */
const times = <T>(count: number, arbitrary: fc.Arbitrary<T>) =>
  Array.from({ length: count }, () => arbitrary);

const commands = [
  fc.boolean().map((revenue) => new Approve(revenue)),
  ...times(
    2,
    fc
      .tuple(fc.nat(), fc.constantFrom(0, 1, 24), fc.boolean())
      .map(([partner, grace, widen]) => new Rotate(partner, grace, widen)),
  ),
  ...times(
    3,
    fc.nat().map((key) => new Reveal(key)),
  ),
  fc.nat().map((key) => new Revoke(key)),
  fc.tuple(fc.nat(), fc.boolean()).map(([partner, revenue]) => new SetAgreement(partner, revenue)),
  fc.tuple(fc.nat(), fc.boolean()).map(([partner, suspend]) => new Suspend(partner, suspend)),
  fc.constant(new Prune()),
  ...times(
    3,
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(10_000, 25_000, MINUTE, 31 * MINUTE, HOUR, DAY, 7 * DAY, 15 * DAY, 30 * DAY),
          fc.integer({ min: MINUTE, max: 30 * DAY }),
        ),
        fc.boolean(),
      )
      .map(([ms, sweep]) => new AdvanceClock(ms, sweep)),
  ),
  fc.constant(new TtlSweep()),
  ...times(
    2,
    fc.tuple(fc.nat(), fc.nat()).map(([partner, lifetime]) => new CreateLink(partner, lifetime)),
  ),
  ...times(
    2,
    fc.nat().map((link) => new OpenLink(link)),
  ),
  ...times(
    2,
    fc.nat().map((link) => new OpenAndProvision(link)),
  ),
  fc.nat().map((browser) => new Provision(browser)),
];

/**
 * One sequence: a partner that holds its revealed first key, then `sequence`, each step checked
 * against the model. It starts `startOffsetMs` after the model's epoch.
 */
async function runSequence(firstRevenue: boolean, startOffsetMs: number, sequence: Iterable<Command>) {
  const now = MODEL_EPOCH + startOffsetMs;
  vi.setSystemTime(now);
  forgetCachedKeys();
  const usagePlan = new Set<string>();
  const real: Real = {
    usagePlan,
    target: {
      stage: 'local',
      actor: 'model-test',
      apiBaseUrl: inject('apiBaseUrl'),
      activationBaseUrl: inject('activationBaseUrl'),
      mailer: { send: async () => ({ delivery: 'outbox', path: '/dev/null' }) },
      usagePlanKeys: {
        issue: async (prefix) => {
          usagePlan.add(prefix);
          return `apigw-${prefix}`;
        },
        remove: async (prefix) => {
          usagePlan.delete(prefix);
        },
      },
    },
  };
  const model: Model = { now, partners: [], keys: [], links: [], browsers: [] };
  // Every sequence starts from a partner that holds its revealed first key.
  await new Approve(firstRevenue).run(model, real);
  await new Reveal(0).run(model, real);
  await fc.asyncModelRun(() => ({ model, real }), sequence);
  tally.runs += 1;
  tally.keys += model.keys.length;
  tally.revealed += model.keys.filter((key) => key.plaintext).length;
  tally.provisioned += model.browsers.filter((browser) => browser.provisioned).length;
}

describe('key, reveal, link and session lifecycle (model-based)', () => {
  beforeAll(async () => {
    // The suite's DynamoDB Local and secrets, with a table of this file's own and the pages' session secret.
    useServiceEnvironment({
      ...inject('localEnvironment'),
      TABLE_NAME: MODEL_TABLE,
      [secretArnVariable('session')]: inject('secretArns').session,
    });
    await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE, { stream: false })));
    await ensureCatalog(DEFAULT_CATALOG);
    // Loaded while the clock is true: the local AWS endpoint refuses signatures 15 minutes off.
    await Promise.all([loadServiceKey('session'), loadServiceKey('sealing')]);
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterAll(() => {
    vi.useRealTimers();
    console.log(
      `Model-based test: ${tally.runs} sequences, ${tally.steps} steps checked (${tally.keys} keys, ${tally.revealed} revealed, ${tally.provisioned} links used).`,
    );
  });

  it('matches the model after every step, across random sequences with a moving clock and TTL sweeps', async () => {
    const runs = Number(process.env.MODEL_RUNS ?? 50);
    const seed = process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        // The start, to the millisecond, is part of what the seed replays: expiries and TTLs
        // round to whole seconds, and a sequence may fail only at one fraction of a second.
        fc.integer({ min: 0, max: 365 * DAY }),
        fc.commands(commands, { size: 'max', maxCommands: 40 }),
        async (firstRevenue, startOffsetMs, sequence) => {
          await runSequence(firstRevenue, startOffsetMs, sequence);
        },
      ),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), endOnFailure: false },
    );
  }, 1_800_000);

  it('keeps a reveal record until the second of its TTL has passed, then answers 404 (a sequence the model once got wrong)', async () => {
    // Half a second into a second: the record's `ttl` rounds up to the next one.
    await runSequence(false, 500, [
      new AdvanceClock(7 * DAY, false),
      new AdvanceClock(7 * DAY, true),
      new Reveal(0), // 410: spent, and still stored
      new AdvanceClock(1_000, true),
      new Reveal(0), // 404: deleted
    ]);
  });
});
