import { randomBytes, randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTableInput } from '../../core/contract/table-definition';
import { queueUrlVariable } from '../../core/event-delivery';
import { secretArnVariable } from '../../core/service-secrets';
import { useServiceEnvironment } from '../../lambdas/common/config';
import { loadServiceKey } from '../../lambdas/common/service-secrets';
import { dynamoDb } from '../../lambdas/data/db';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { modelPartner } from '../support/partners';
import {
  ActivateAgain,
  AdvanceClock,
  Deliver,
  Duplicate,
  Poison,
  TtlSweep,
  WalkPage,
} from '../support/platform-events-model/delivery-commands';
import {
  EndSponsorship,
  Erasure,
  PropertyChange,
  ReservationChange,
  SeatChange,
} from '../support/platform-events-model/entity-commands';
import { checkInvariants, tally } from '../support/platform-events-model/invariants';
import {
  type Command,
  DAY,
  MINUTE,
  MODEL_EPOCH,
  MODEL_TABLE,
  type Model,
  type ModelHost,
  type ModelPartner,
  type ModelProperty,
  type ModelSponsorship,
  type Product,
  type Real,
} from '../support/platform-events-model/model';

/*
 * A model-based test of the platform's events (docs/design/events.md): random streams of the
 * platform's changes (seats, properties, sponsorships, reservations, erasures), published, then
 * delivered to the real consumer in batches of any size and in any order, delayed, duplicated,
 * mixed with poison (events that break the contract, name unknown ids, a product outside the
 * agreement, or disagree with another event of their version), and interleaved with new
 * activation links, a moving clock and TTL sweeps. After every step the partners' view, read
 * through the real API handlers, equals what a small model computes from the highest version of
 * every entity: `GET /usage`, `GET /properties` (a walk through its pages included) and every
 * property's pricing signals; no seat counter is below zero; no item holds an erased host's
 * e-mail address or names; and exactly the poison deliveries are in the dead-letter queue.
 *
 * It runs on DynamoDB Local with a table of its own, made afresh for each stream (so that the
 * erasure check can read every item of it), and fakes only `Date`; the consumer's dead
 * letters (`sqs:SendMessage`) are kept by the test (aws-sdk-client-mock on SQS alone: the real SQS
 * protocol is the integration suite's, through the local server). MODEL_RUNS (default 30) sets how many streams;
 * MODEL_SEED replays one (fast-check prints the seed, the path and the shortest failing stream).
 */

const times = <T>(count: number, arbitrary: fc.Arbitrary<T>) =>
  Array.from({ length: count }, () => arbitrary);

const commands = [
  ...times(
    2,
    fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([p, product, on]) => new SeatChange(p, product, on)),
  ),
  fc
    .tuple(
      fc.nat(),
      fc.option(fc.nat(), { nil: undefined }),
      fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    )
    .map(([p, name, units]) => new PropertyChange(p, name, units)),
  fc.nat().map((s) => new EndSponsorship(s)),
  ...times(
    2,
    fc
      .tuple(
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.nat(),
        fc.boolean(),
      )
      .map(
        ([p, r, ago, lead, nights, channel, cancelled]) =>
          new ReservationChange(p, r, ago, lead, nights, channel, cancelled),
      ),
  ),
  fc.nat().map((h) => new Erasure(h)),
  fc.tuple(fc.nat(), fc.nat()).map(([kind, target]) => new Poison(kind, target)),
  fc.nat().map((i) => new Duplicate(i)),
  ...times(
    4,
    fc.array(fc.nat(), { minLength: 1, maxLength: 10 }).map((picks) => new Deliver(picks)),
  ),
  fc
    .tuple(fc.nat(), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }))
    .map(([p, products]) => new ActivateAgain(p, products)),
  fc
    .oneof(fc.constantFrom(MINUTE, 61 * MINUTE, DAY, 15 * DAY), fc.integer({ min: 1_000, max: 3 * DAY }))
    .map((ms) => new AdvanceClock(ms)),
  fc.constant(new TtlSweep()),
  fc.nat().map((p) => new WalkPage(p)),
];

// --- A stream ---------------------------------------------------------------------------------

async function approve(
  label: 'A' | 'B',
  agreement: readonly Product[],
  nowMs: number,
): Promise<ModelPartner> {
  return { label, id: await modelPartner(`model-${label.toLowerCase()}`, agreement, nowMs), agreement };
}

/**
 * The start of every stream: partner A (three products) and B (two); host 0 sponsored by both
 * (two properties with A, one with B), host 1 by A, host 2 by B.
 */
async function startingState(run: number, nowMs: number): Promise<Model> {
  const a = await approve('A', ['assistant', 'upsells', 'guidebook'], nowMs);
  const b = await approve('B', ['assistant', 'guidebook'], nowMs);
  const hosts: ModelHost[] = [0, 1, 2].map((index) => ({
    index,
    email: `host-${index}-${run}-${randomBytes(3).toString('hex')}@model.example`,
    name: `Model Host ${index} ${run} ${randomBytes(3).toString('hex')}`,
    id: 0,
    erased: false,
  }));
  const layout: [ModelPartner, number, Product[]][] = [
    [a, 0, ['assistant', 'upsells']],
    [a, 0, ['assistant']],
    [b, 0, ['guidebook']],
    [a, 1, ['assistant']],
    [b, 2, ['assistant', 'guidebook']],
  ];
  const properties: ModelProperty[] = [];
  for (const [index, [partner, hostIndex, products]] of layout.entries()) {
    const host = hosts[hostIndex] as ModelHost;
    const property = {
      index,
      partner,
      host,
      pmsHotelId: `M-${run}-${index}`,
      initialName: `Model Property ${index} ${run} ${randomBytes(3).toString('hex')}`,
      id: 0,
      chosenAt: new Map(products.map((product) => [product, nowMs] as const)),
    };
    const result = await provisionSponsoredHost({
      partnerId: partner.id,
      contactEmail: host.email,
      contactName: host.name,
      pmsHotelId: property.pmsHotelId,
      propertyName: property.initialName,
      productIds: products,
      nowMs,
    });
    host.id = result.hostUserId;
    property.id = result.propertyId;
    properties.push(property);
  }
  const sponsorships: ModelSponsorship[] = [
    [a, 0],
    [b, 0],
    [a, 1],
    [b, 2],
  ].map(([partner, hostIndex]) => ({
    partner: partner as ModelPartner,
    host: hosts[hostIndex as number] as ModelHost,
    lastProvisionedAt: nowMs,
  }));
  return {
    now: nowMs,
    run,
    partners: [a, b],
    hosts,
    properties,
    sponsorships,
    published: [],
    pending: [],
    applied: new Map(),
    expectedDeadLetters: [],
    mayDeadLetter: [],
    versions: new Map(),
  };
}

const sqs = mockClient(SQSClient);
let runs = 0;

async function runStream(startOffsetMs: number, stream: Iterable<Command>) {
  const now = MODEL_EPOCH + startOffsetMs;
  vi.setSystemTime(now);
  runs += 1;
  await dynamoDb().send(new DeleteTableCommand({ TableName: MODEL_TABLE }));
  await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE, { stream: false })));
  const real: Real = { deadLetters: [] };
  sqs.reset();
  sqs
    .on(SendMessageCommand)
    .callsFake(
      (input: { MessageBody?: string; MessageAttributes?: Record<string, { StringValue?: string }> }) => {
        // Every dead letter says why.
        const reason = input.MessageAttributes?.reason?.StringValue ?? '';
        expect(reason).toMatch(/\S/);
        real.deadLetters.push({ id: JSON.parse(input.MessageBody ?? '{}').id, reason });
        return { MessageId: randomUUID() };
      },
    );
  const model = await startingState(runs, now);
  await checkInvariants(model, real);
  await fc.asyncModelRun(() => ({ model, real }), stream);
  // Everything still waiting is delivered at last, one at a time, and the model still holds.
  while (model.pending.length > 0) await new Deliver([0]).run(model, real);
  tally.runs += 1;
  tally.erasures += model.hosts.filter((host) => host.erased).length;
  tally.deadLettered += model.expectedDeadLetters.length;
}

describe('the platform’s events (model-based)', () => {
  beforeAll(async () => {
    useServiceEnvironment({
      ...inject('localEnvironment'),
      TABLE_NAME: MODEL_TABLE,
      [queueUrlVariable('platformEventsDeadLetter')]: 'https://sqs.local/000000000000/model-dead-letters',
      [secretArnVariable('cursor')]: inject('secretArns').cursor ?? '',
    });
    await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE, { stream: false })));
    // Loaded while the clock is true: the suite's AWS endpoint refuses signatures 15 minutes off.
    await loadServiceKey('cursor');
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterAll(async () => {
    vi.useRealTimers();
    sqs.restore();
    console.log(
      `Event model: ${tally.runs} streams, ${tally.steps} steps checked (${tally.delivered} deliveries, ${tally.deadLettered} dead-lettered, ${tally.erasures} hosts erased, ${tally.walks} pages walked).`,
    );
  });

  it('matches the model after every step, for random streams delivered in any order, any number of times', async () => {
    const runsWanted = Number(process.env.MODEL_RUNS ?? 30);
    const seed = process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 365 * DAY }),
        fc.commands(commands, { size: 'max', maxCommands: 30 }),
        async (startOffsetMs, stream) => {
          await runStream(startOffsetMs, stream);
        },
      ),
      { numRuns: runsWanted, ...(seed === undefined ? {} : { seed }), endOnFailure: false },
    );
  }, 1_800_000);

  it('keeps a host that came back through a link when its older ending arrives late (a stream the model pins down)', async () => {
    await runStream(0, [
      new EndSponsorship(0),
      new AdvanceClock(MINUTE),
      new ActivateAgain(0, [0]),
      new Deliver([0]),
      new SeatChange(0, 1, false),
      new AdvanceClock(MINUTE),
      new ActivateAgain(0, [1]),
      new Deliver([0]),
    ]);
  });
});
