import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, inject, it, vi } from 'vitest';
import { createTableInput } from '../../core/contract/table-definition';
import type { OutboxStreamRecord } from '../../core/outbound-delivery';
import type { DynamoDbLocal } from '../../emulator/dynamodb-local';
import { startDynamoDbLocal } from '../../emulator/dynamodb-local';
import type { OutboundEvent } from '../../emulator/outbound-pipe';
import { LocalOutboundPipe } from '../../emulator/outbound-pipe';
import { useServiceEnvironment } from '../../lambdas/common/config';
import { dynamoDb } from '../../lambdas/data/db';
import { handler as enrichment } from '../../lambdas/events/outbound-enrichment';
import {
  Activate,
  EditOnly,
  installFaults,
  Retry,
  Submit,
} from '../support/outbound-events-model/host-commands';
import {
  type Command,
  DAY,
  MINUTE,
  MODEL_EPOCH,
  MODEL_TABLE,
  type Model,
  type ModelPartner,
  type Platform,
  type Product,
  type Real,
  SECOND,
  tally,
} from '../support/outbound-events-model/model';
import {
  AdvanceClock,
  Deliver,
  EndSponsorship,
  Erase,
  Fetch,
  PlatformSeat,
  Settle,
  settle,
  TtlSweep,
} from '../support/outbound-events-model/platform-commands';
import { modelPartner } from '../support/partners';

/*
 * A model-based test of the events this service sends the platform (docs/design/events.md#what-this-service-sends):
 * random sequences of the real commands — activations through `provisionSponsoredHost` (new hosts,
 * the same e-mail in another case, a partner sponsoring again, a retried link), the wizard's steps
 * saved and submitted through its own steps (`WIZARD_STEPS`: parse, save, and the review's
 * submission), the platform's seat changes, sponsorship endings and erasures through the real
 * consumer logic — with faults injected into the provisioning and wizard transactions (the
 * connection drops before the commit, or the function dies right after it), a clock that moves,
 * and TTL sweeps. The outbox is delivered by the local pipe's own code (emulator/outbound-pipe.ts:
 * DynamoDB Local's stream, the filter, the real enrichment handler, the target's template) to a
 * model platform, in any order and any number of times, that applies the events by version as
 * the contract tells the platform to.
 *
 * After every step: the outbox holds exactly one event per committed change, none for a failed
 * one, each valid against the contract; every event the platform received was committed; no item
 * of the table holds an erased host's e-mail, name or answers, and nothing fetched after an
 * erasure does. Whenever the pipe has delivered everything, the platform holds exactly this
 * service's hosts, each property's provisioning, its active products and its last submitted
 * knowledge base.
 *
 * It runs on a DynamoDB Local of its own (streams slow their instance down as they fill), with a
 * table made afresh for each sequence, and fakes only `Date`. MODEL_RUNS (default 20) sets how many sequences; MODEL_SEED replays one.
 */

const injected = fc.constantFrom<'before' | 'after' | undefined>(
  undefined,
  undefined,
  undefined,
  'before',
  'after',
);

const commands = [
  ...Array.from({ length: 3 }, () =>
    fc
      .tuple(
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.boolean(),
        injected,
      )
      .map(
        ([h, p, partner, products, language, upper, fault]) =>
          new Activate(h, p, partner, products, language, upper, fault),
      ),
  ),
  fc.nat().map((index) => new Retry(index)),
  ...Array.from({ length: 3 }, () =>
    fc
      .tuple(fc.nat(), fc.integer({ min: 1, max: 2 }), fc.nat(), injected)
      .map(([p, rows, language, fault]) => new Submit(p, rows, language, fault)),
  ),
  fc.nat().map((p) => new EditOnly(p)),
  fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([p, product, on]) => new PlatformSeat(p, product, on)),
  fc.nat().map((p) => new EndSponsorship(p)),
  fc.nat().map((h) => new Erase(h)),
  fc.constant(new Fetch()),
  ...Array.from({ length: 2 }, () =>
    fc
      .tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.boolean())
      .map(([picks, duplicate]) => new Deliver(picks, duplicate)),
  ),
  fc.array(fc.nat(), { maxLength: 20 }).map((order) => new Settle(order)),
  fc
    .oneof(fc.constantFrom(MINUTE, DAY + MINUTE, 15 * DAY), fc.integer({ min: SECOND, max: 2 * DAY }))
    .map((ms) => new AdvanceClock(ms)),
  fc.constant(new TtlSweep()),
];

// --- A sequence ----------------------------------------------------------------------------------

async function approve(agreement: readonly Product[], nowMs: number): Promise<ModelPartner> {
  return { id: await modelPartner('outbound-model', agreement, nowMs), agreement };
}

async function startingState(run: number, nowMs: number): Promise<Model> {
  const partners = [
    await approve(['assistant', 'upsells', 'guidebook'], nowMs),
    await approve(['assistant', 'guidebook'], nowMs),
  ];
  const hosts = [0, 1, 2].map((index) => ({
    index,
    email: `host-${index}-${run}-${randomBytes(3).toString('hex')}@outbound.example`,
    name: `Outbound Host ${index} ${run} ${randomBytes(3).toString('hex')}`,
    id: 0,
    erased: false,
  }));
  return {
    now: nowMs,
    run,
    partners,
    hosts,
    properties: [],
    expected: [],
    platformVersions: new Map(),
    retries: [],
  };
}

let runs = 0;

async function runSequence(startOffsetMs: number, sequence: Iterable<Command>) {
  const now = MODEL_EPOCH + startOffsetMs;
  vi.setSystemTime(now);
  runs += 1;
  await dynamoDb().send(new DeleteTableCommand({ TableName: MODEL_TABLE }));
  await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE)));
  const fetched: OutboundEvent[] = [];
  const pipe = new LocalOutboundPipe({
    dynamoDbEndpoint: ownDynamoDb?.endpoint ?? '',
    tableName: MODEL_TABLE,
    batchingWindowMs: 0,
    invoke: async (_name, records) =>
      ({ ok: true, payload: JSON.stringify(await enrichment(records as OutboxStreamRecord[])) }) as never,
    put: (event) => fetched.push(event),
  });
  const platform: Platform = {
    provisioned: new Map(),
    chosenAt: new Map(),
    knowledge: new Map(),
    erased: new Set(),
    seats: new Map(),
    received: new Set(),
    wire: [],
  };
  const real: Real = { pipe, platform, fetched, committedIds: new Set() };
  const model = await startingState(runs, now);
  try {
    // Three hosts provisioned first (two properties of host 0, under both partners), so that every
    // command has something to act on from the first step.
    for (const [host, partner, products] of [
      [0, 0, [0, 1]],
      [1, 0, [0]],
      [0, 1, [1]],
    ] as const)
      await new Activate(host, 1, partner, products, host, false, undefined).run(model, real);
    await fc.asyncModelRun(() => ({ model, real }), sequence);
    // At the end, everything is delivered, and the platform matches.
    await settle(model, real, []);
  } finally {
    await pipe.stop();
  }
  tally.runs += 1;
}

/**
 * A DynamoDB Local of the test's own: each sequence's table has the stream the pipe reads, and
 * DynamoDB Local's streams slow every write of their instance as their records pile up across
 * tables, which the suite's other files would pay for.
 */
let ownDynamoDb: DynamoDbLocal | undefined;

describe('the events this service sends the platform (model-based)', () => {
  beforeAll(async () => {
    ownDynamoDb = await startDynamoDbLocal();
    useServiceEnvironment({
      ...inject('localEnvironment'),
      DYNAMODB_ENDPOINT: ownDynamoDb.endpoint,
      TABLE_NAME: MODEL_TABLE,
    });
    await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE)));
    installFaults();
    vi.useFakeTimers({ toFake: ['Date'] });
  }, 60_000);
  afterAll(async () => {
    vi.useRealTimers();
    await ownDynamoDb?.stop();
    console.log(
      `Outbound model: ${tally.runs} sequences, ${tally.steps} steps checked, ${tally.committed} changes committed (${tally.failedBefore} failed before the commit, ${tally.failedAfter} after it), ${tally.delivered} deliveries, ${tally.erasures} erasures, ${tally.settles} settles compared with the platform.`,
    );
  });

  it('every committed change, and only those, reaches a platform that applies by version, whatever the order', async () => {
    const runsWanted = Number(process.env.MODEL_RUNS ?? 20);
    const seed = process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 180 * DAY }),
        fc.commands(commands, { size: 'max', maxCommands: 30 }),
        async (startOffsetMs, sequence) => {
          await runSequence(startOffsetMs, sequence);
        },
      ),
      { numRuns: runsWanted, ...(seed === undefined ? {} : { seed }), endOnFailure: false },
    );
  }, 1_800_000);

  it('keeps the platform whole through a failure after the commit, a retried link and an erasure (a sequence the model pins down)', async () => {
    await runSequence(0, [
      new Activate(0, 1, 0, [0, 1], 1, false, 'after'),
      new Retry(0),
      new Submit(0, 2, 1, undefined),
      new Deliver([0, 1], true),
      new Submit(0, 1, 0, 'before'),
      new Submit(0, 1, 2, undefined),
      new Activate(0, 0, 0, [1], 0, true, undefined),
      new Erase(0),
      new Settle([3, 1, 2, 0]),
    ]);
  });
});
