import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent } from 'aws-lambda';
import type { PlatformEvent } from '../../core/contract/platform-events';
import type { Reservation } from '../../core/domain/reservations';
import { applyReservations } from '../lib/apply-events';
import { benchReservations, createBenchPartner, sponsoredProperty } from '../lib/datasets';
import type { DynamoUsage } from '../lib/dynamo-meter';
import { benchKeyPrefix, callApi, inProcess } from '../lib/in-process';
import { progress } from '../lib/progress';
import type { BudgetCheck, SectionResult, Table } from '../lib/report';
import type { Summary } from '../lib/stats';
import { formatNumber, formatSummary, percentile, summarize } from '../lib/stats';
import { dollarsPerMillion } from './dynamo-cost';

/*
 * 9. The platform's events. One consumer instance's rate (the real handler in this process, fed
 * SQS batches of 10 one after another, as Lambda feeds one instance); DynamoDB units per event
 * kind through the same handler, one event per batch; publish-to-visible lag through the local
 * server's own bus, queue and event source mapping; and the lag of other properties' events while
 * one hot property's 1,000 bookings are in the queue.
 */

const DAY_MS = 86_400_000;
const BATCH = 10;
const RATE_EVENTS = 1_000;
const RATE_ROUNDS = 3;
const SPREAD_PROPERTIES = 100;
const COST_SAMPLES = 5;
const HISTORY_SIZES = [100, 100_000];
const LAG_SAMPLES = 30;
const HOT_EVENTS = 1_000;
const OTHER_PROPERTIES = 50;
const POLL_MS = 20;
const LAG_BUDGET_MS = 5_000;

/** A Lambda context with a minute left, as the consumer's 60-second timeout gives. */
const context = {
  functionName: 'bench-events',
  awsRequestId: 'bench',
  getRemainingTimeInMillis: () => 60_000,
} as Context;

async function consumer() {
  return (await import('../../lambdas/events/consumer')).handler;
}

/** SQS records of EventBridge events, as the rule delivers them to the queue. */
function sqsBatch(events: readonly PlatformEvent[]): SQSEvent {
  const now = new Date().toISOString();
  return {
    Records: events.map((event) => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      body: JSON.stringify({
        version: '0',
        id: randomUUID(),
        'detail-type': event.type,
        source: 'host-platform',
        account: '000000000000',
        time: now,
        region: 'local',
        resources: [],
        detail: event.detail,
      }),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: '000000000000',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:bench',
      awsRegion: 'local',
    })),
  };
}

/** Runs the events through the consumer in batches of 10, one batch at a time; throws on any failure. */
async function consume(events: readonly PlatformEvent[]): Promise<{ seconds: number; batchMs: number[] }> {
  const handler = await consumer();
  const batchMs: number[] = [];
  const started = performance.now();
  for (let start = 0; start < events.length; start += BATCH) {
    const batchStarted = performance.now();
    const { batchItemFailures } = await handler(sqsBatch(events.slice(start, start + BATCH)), context);
    batchMs.push(performance.now() - batchStarted);
    if (batchItemFailures.length > 0)
      throw new Error(`${batchItemFailures.length} events of a batch failed; the bench expects none`);
  }
  return { seconds: (performance.now() - started) / 1000, batchMs };
}

/** A reservation booked a few days ago for a stay next month: the common booking. */
function booking(id: string, index: number, nowMs: number): Omit<Reservation, 'property_id'> {
  const bookedAt = nowMs - (1 + (index % 20)) * DAY_MS;
  const checkIn = Math.floor(nowMs / DAY_MS) + 20 + (index % 40);
  const day = (value: number) => new Date(value * DAY_MS).toISOString().slice(0, 10);
  return {
    id,
    channel: ['Airbnb', 'Booking.com', 'Direct'][index % 3] ?? 'Direct',
    booked_at: new Date(bookedAt).toISOString(),
    check_in: day(checkIn),
    check_out: day(checkIn + 1 + (index % 6)),
    status: 'confirmed',
  };
}

const reservationChanged = (
  propertyId: number,
  version: number,
  reservation: Omit<Reservation, 'property_id'>,
): PlatformEvent => ({
  type: 'ReservationChanged',
  detail: { property_id: propertyId, version, reservation },
});

interface RateRow {
  readonly workload: string;
  readonly eventsPerSecond: Summary;
  readonly batchP50: Summary;
  readonly batchP99: Summary;
  readonly vsBare: Summary;
}

/**
 * A bare transaction of three actions (a put, an update, a condition check: the shape of a seat's
 * or a booking's), ten side by side per batch: what DynamoDB Local allows this machine, the
 * baseline of the consumer's rate.
 */
async function bareTransactionsPerSecond(count: number, propertyIds: readonly number[]): Promise<number> {
  const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamoDb, tableName } = await import('../../lambdas/data/db');
  const run = randomUUID().slice(0, 8);
  const started = performance.now();
  for (let start = 0; start < count; start += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, count - start) }, (_, offset) => {
        const index = start + offset;
        const pk = `BENCH#${run}#${propertyIds[index % propertyIds.length]}`;
        return dynamoDb().send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: tableName(), Item: { PK: pk, SK: `ITEM#${index}`, version: 1 } } },
              {
                Update: {
                  TableName: tableName(),
                  Key: { PK: pk, SK: 'COUNTER' },
                  UpdateExpression: 'ADD n :one',
                  ExpressionAttributeValues: { ':one': 1 },
                },
              },
              {
                ConditionCheck: {
                  TableName: tableName(),
                  Key: { PK: `${pk}#ANCHOR`, SK: 'ANCHOR' },
                  ConditionExpression: 'attribute_not_exists(erasedAt)',
                },
              },
            ],
          }),
        );
      }),
    );
  }
  return count / ((performance.now() - started) / 1000);
}

async function measureRates(spread: readonly number[], hot: number, nowMs: number): Promise<RateRow[]> {
  const workloads: { label: string; events: (round: number) => PlatformEvent[] }[] = [
    {
      label: `New bookings, ${SPREAD_PROPERTIES} properties`,
      events: (round) =>
        Array.from({ length: RATE_EVENTS }, (_, index) =>
          reservationChanged(
            spread[index % spread.length] ?? 0,
            1,
            booking(`rate-spread-${round}-${index}`, index, nowMs),
          ),
        ),
    },
    {
      label: 'New bookings, one property (a batch shares transactions)',
      events: (round) =>
        Array.from({ length: RATE_EVENTS }, (_, index) =>
          reservationChanged(hot, 1, booking(`rate-hot-${round}-${index}`, index, nowMs)),
        ),
    },
    {
      label: `Seats switched off and on, ${SPREAD_PROPERTIES} properties`,
      events: (round) =>
        Array.from({ length: RATE_EVENTS }, (_, index) => {
          const pass = Math.floor(index / spread.length);
          const version = 1 + round * 100 + pass;
          return {
            type: version % 2 === 1 ? 'SeatDeactivated' : 'SeatActivated',
            detail: {
              property_id: spread[index % spread.length] ?? 0,
              product_id: 'upsells',
              version,
              occurred_at: new Date().toISOString(),
            },
          } as PlatformEvent;
        }),
    },
    {
      label: `Properties renamed, ${SPREAD_PROPERTIES} properties`,
      events: (round) =>
        Array.from({ length: RATE_EVENTS }, (_, index) => {
          const version = 1 + round * 100 + Math.floor(index / spread.length);
          return {
            type: 'PropertyUpdated',
            detail: { property_id: spread[index % spread.length] ?? 0, version, name: `Renamed ${version}` },
          } as PlatformEvent;
        }),
    },
  ];
  const rows: RateRow[] = [];
  for (const workload of workloads) {
    const rates: number[] = [];
    const p50s: number[] = [];
    const p99s: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < RATE_ROUNDS; round++) {
      progress(`events: ${workload.label}, round ${round + 1} of ${RATE_ROUNDS}`);
      const bare = await bareTransactionsPerSecond(RATE_EVENTS, spread);
      const { seconds, batchMs } = await consume(workload.events(round));
      const sorted = [...batchMs].sort((a, b) => a - b);
      rates.push(RATE_EVENTS / seconds);
      p50s.push(percentile(sorted, 50));
      p99s.push(percentile(sorted, 99));
      ratios.push(RATE_EVENTS / seconds / bare);
    }
    rows.push({
      workload: workload.label,
      eventsPerSecond: summarize(rates),
      batchP50: summarize(p50s),
      batchP99: summarize(p99s),
      vsBare: summarize(ratios),
    });
  }
  return rows;
}

interface CostRow {
  readonly kind: string;
  readonly samples: number;
  readonly requests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly dollarsPerMillion: number;
}

/** The median usage of one event per batch (or of a batch, per event), over fresh samples. */
async function costOf(kind: string, samples: readonly (readonly PlatformEvent[])[]): Promise<CostRow> {
  const handler = await consumer();
  const { meter } = await inProcess();
  const usages: DynamoUsage[] = [];
  for (const events of samples) {
    meter.take();
    const { batchItemFailures } = await handler(sqsBatch(events), context);
    if (batchItemFailures.length > 0) throw new Error(`${kind}: an event failed`);
    const usage = meter.take();
    usages.push({
      requests: usage.requests / events.length,
      itemsRead: usage.itemsRead / events.length,
      readCapacity: usage.readCapacity / events.length,
      writeCapacity: usage.writeCapacity / events.length,
    });
  }
  const median = (pick: (usage: DynamoUsage) => number) => summarize(usages.map(pick)).median;
  const readUnits = median((usage) => usage.readCapacity);
  const writeUnits = median((usage) => usage.writeCapacity);
  return {
    kind,
    samples: samples.length,
    requests: median((usage) => usage.requests),
    readUnits,
    writeUnits,
    dollarsPerMillion: dollarsPerMillion(readUnits, writeUnits),
  };
}

interface HistoryRow extends CostRow {
  readonly history: number;
  readonly buildSeconds: number;
}

/** `COST_SAMPLES` samples, each made from its index. */
const costSamples = <T>(make: (index: number) => T): T[] =>
  Array.from({ length: COST_SAMPLES }, (_, index) => make(index));
const at = () => new Date().toISOString();

async function measureCosts(
  partnerId: number,
  spread: readonly number[],
  nowMs: number,
): Promise<{ kinds: CostRow[]; history: HistoryRow[] }> {
  progress('events: DynamoDB units per event kind');
  const kinds = [...(await eventKindCosts(spread, nowMs)), ...(await endingCosts(partnerId, nowMs))];
  return { kinds, history: await historyCosts(partnerId, nowMs) };
}

/** The units of each kind of event on the spread properties: seats, a property, reservations, a duplicate. */
async function eventKindCosts(spread: readonly number[], nowMs: number): Promise<CostRow[]> {
  const property = (index: number) => spread[index % spread.length] ?? 0;
  const kinds: CostRow[] = [];
  // Version 1000+: newer than whatever the rate workloads applied.
  kinds.push(
    await costOf(
      'SeatDeactivated',
      costSamples((index) => [
        {
          type: 'SeatDeactivated',
          detail: { property_id: property(index), product_id: 'guidebook', version: 1001, occurred_at: at() },
        },
      ]),
    ),
    await costOf(
      'SeatActivated',
      costSamples((index) => [
        {
          type: 'SeatActivated',
          detail: { property_id: property(index), product_id: 'guidebook', version: 1002, occurred_at: at() },
        },
      ]),
    ),
    await costOf(
      'PropertyUpdated (name and units)',
      costSamples((index) => [
        {
          type: 'PropertyUpdated',
          detail: { property_id: property(index), version: 1001, name: 'Sea view', units: 3 },
        },
      ]),
    ),
    await costOf(
      'ReservationChanged, a new booking',
      costSamples((index) => [
        reservationChanged(property(index), 1, booking(`cost-${index}`, index, nowMs)),
      ]),
    ),
    await costOf(
      'ReservationChanged, dates moved',
      costSamples((index) => [
        reservationChanged(property(index), 2, {
          ...booking(`cost-${index}`, index, nowMs),
          check_in: '2030-01-10',
          check_out: '2030-01-14',
        }),
      ]),
    ),
    await costOf(
      'ReservationChanged, cancelled',
      costSamples((index) => [
        reservationChanged(property(index), 3, {
          ...booking(`cost-${index}`, index, nowMs),
          check_in: '2030-01-10',
          check_out: '2030-01-14',
          status: 'cancelled',
        }),
      ]),
    ),
    await costOf(
      'ReservationChanged, 10 new bookings of one property in a batch (per event)',
      costSamples((sample) =>
        Array.from({ length: BATCH }, (_, index) =>
          reservationChanged(property(sample), 1, booking(`cost-batch-${sample}-${index}`, index, nowMs)),
        ),
      ),
    ),
    await costOf(
      'A duplicate (any kind: read, nothing written)',
      costSamples((index) => [
        reservationChanged(property(index), 1, booking(`cost-batch-${index}-0`, 0, nowMs)),
      ]),
    ),
  );
  return kinds;
}

/** The units of a sponsorship's end and a host's erasure, each on hosts sponsored for it. */
async function endingCosts(partnerId: number, nowMs: number): Promise<CostRow[]> {
  const kinds: CostRow[] = [];
  const leaving = await Promise.all(
    costSamples((index) => sponsoredProperty(partnerId, `events-leaving-${index}`, nowMs)),
  );
  kinds.push(
    await costOf(
      'SponsorshipEnded (a host with one property)',
      leaving.map(({ hostUserId }) => [
        {
          type: 'SponsorshipEnded',
          detail: { partner_id: partnerId, host_user_id: hostUserId, version: 1, occurred_at: at() },
        },
      ]),
    ),
  );
  const erased = await Promise.all(
    costSamples((index) => sponsoredProperty(partnerId, `events-erased-${index}`, nowMs)),
  );
  for (const { propertyId } of erased)
    await applyReservations(propertyId, benchReservations(propertyId, 0, 20, nowMs), nowMs, 1);
  kinds.push(
    await costOf(
      'HostErasureRequested (one property, 20 reservations)',
      erased.map(({ hostUserId }) => [
        { type: 'HostErasureRequested', detail: { host_user_id: hostUserId, requested_at: at() } },
      ]),
    ),
  );
  return kinds;
}

/** A new booking and a move of its dates on properties with a small and a large history: the same units. */
async function historyCosts(partnerId: number, nowMs: number): Promise<HistoryRow[]> {
  const history: HistoryRow[] = [];
  for (const size of HISTORY_SIZES) {
    const { propertyId } = await sponsoredProperty(partnerId, `events-history-${size}`, nowMs);
    progress(`events: a property with ${formatNumber(size, 0)} reservations of history`);
    const started = performance.now();
    const applied = await applyReservations(propertyId, benchReservations(propertyId, 0, size, nowMs), nowMs);
    if (applied !== size) throw new Error(`Applied ${applied} of ${size} reservations`);
    const buildSeconds = (performance.now() - started) / 1000;
    // As in any month a channel already sells in: each sample's channel booked once in its month. A
    // channel new to a month the consumer instance has not seen costs one read more (the cap's count
    // of the month's channels, docs/design/pricing-signals.md), measured on its own below.
    await applyReservations(
      propertyId,
      costSamples((index) => ({
        ...booking(`history-seen-${index}`, index, nowMs),
        property_id: propertyId,
      })),
      nowMs,
    );
    const row = await costOf(
      `ReservationChanged, a new booking (history ${formatNumber(size, 0)})`,
      costSamples((index) => [reservationChanged(propertyId, 1, booking(`history-${index}`, index, nowMs))]),
    );
    const moved = await costOf(
      `ReservationChanged, dates moved (history ${formatNumber(size, 0)})`,
      costSamples((index) => [
        reservationChanged(propertyId, 2, {
          ...booking(`history-${index}`, index, nowMs),
          check_in: '2030-01-10',
          check_out: '2030-01-14',
        }),
      ]),
    );
    const newChannel = await costOf(
      `ReservationChanged, a channel new to its month (history ${formatNumber(size, 0)})`,
      costSamples((index) => [
        reservationChanged(propertyId, 1, {
          ...booking(`history-new-channel-${index}`, index, nowMs),
          channel: `Bench channel ${index}`,
        }),
      ]),
    );
    history.push(
      { ...row, history: size, buildSeconds },
      { ...moved, history: size, buildSeconds },
      { ...newChannel, history: size, buildSeconds },
    );
  }
  return history;
}

/** Publishes through the local server's bus (PutEvents), as `events publish` does. */
async function publish(events: readonly PlatformEvent[]): Promise<void> {
  const { publishPlatformEvents } = await import('../../operations/events');
  await publishPlatformEvents(events);
}

/** The names GET /properties shows the partner now, by property id (in-process, the server's table). */
async function namesShown(partnerId: number): Promise<Map<number, string>> {
  const { value } = await callApi('properties', {
    partnerId,
    keyPrefix: benchKeyPrefix(),
    query: { limit: '1000' },
  });
  const body = JSON.parse(value.body) as { properties?: { id: number; name: string }[] };
  return new Map((body.properties ?? []).map((property) => [property.id, property.name]));
}

async function measureLag(partnerId: number, propertyIds: readonly number[]): Promise<number[]> {
  const lags: number[] = [];
  for (let sample = 0; sample < LAG_SAMPLES; sample++) {
    const propertyId = propertyIds[sample % propertyIds.length] ?? 0;
    const name = `Lag sample ${sample} ${randomUUID().slice(0, 6)}`;
    await publish([
      { type: 'PropertyUpdated', detail: { property_id: propertyId, version: 100 + sample, name } },
    ]);
    const published = performance.now();
    while ((await namesShown(partnerId)).get(propertyId) !== name) {
      if (performance.now() - published > 60_000) throw new Error(`Sample ${sample} not visible after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    lags.push(performance.now() - published);
  }
  return lags;
}

interface HotResult {
  /** Lag of each other property's rename, from its PutEvents call returning to visible. */
  readonly othersLagMs: number[];
  /** From the first PutEvents call to the hot property's last booking stored. */
  readonly hotDrainSeconds: number;
  readonly publishSeconds: number;
}

async function storedReservations(propertyId: number): Promise<number> {
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamoDb, tableName } = await import('../../lambdas/data/db');
  const { propertyPartition } = await import('../../core/partitions');
  const { Count = 0 } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :res)',
      ExpressionAttributeValues: { ':pk': propertyPartition(propertyId), ':res': 'RES#' },
      Select: 'COUNT',
    }),
  );
  return Count;
}

/**
 * The hot property's bookings and one rename of each other property, the renames spread evenly
 * through the stream (one after every 20 bookings), published ten per PutEvents call as
 * `events publish` does, each call's return time kept; then polled until every rename is visible
 * and every booking stored. With `hotEvents` 0, the same renames alone: the control.
 */
async function measureHot(
  partnerId: number,
  hot: number,
  others: readonly number[],
  hotEvents: number,
  nowMs: number,
  label: string,
  versionBase: number,
): Promise<HotResult> {
  const renames = others.map((propertyId, index) => ({
    propertyId,
    name: `${label} ${index} ${randomUUID().slice(0, 6)}`,
  }));
  const stream: { event: PlatformEvent; rename?: number }[] = [];
  const every = Math.max(1, Math.floor(hotEvents / renames.length));
  let next = 0;
  for (let index = 0; index < Math.max(hotEvents, renames.length); index++) {
    if (index < hotEvents)
      stream.push({ event: reservationChanged(hot, 1, booking(`${label}-${index}`, index, nowMs)) });
    if ((index + 1) % every === 0 && next < renames.length) {
      const rename = renames[next] as (typeof renames)[number];
      stream.push({
        event: {
          type: 'PropertyUpdated',
          detail: { property_id: rename.propertyId, version: versionBase + next, name: rename.name },
        },
        rename: next,
      });
      next += 1;
    }
  }
  const storedBefore = await storedReservations(hot);
  const publishedAt = new Map<number, number>();
  const started = performance.now();
  for (let start = 0; start < stream.length; start += BATCH) {
    const chunk = stream.slice(start, start + BATCH);
    await publish(chunk.map((entry) => entry.event));
    const returned = performance.now();
    for (const entry of chunk) if (entry.rename !== undefined) publishedAt.set(entry.rename, returned);
  }
  const publishSeconds = (performance.now() - started) / 1000;
  const visibleAt = new Map<number, number>();
  let hotDoneAt = hotEvents === 0 ? started : undefined;
  while (visibleAt.size < renames.length || hotDoneAt === undefined) {
    if (performance.now() - started > 300_000)
      throw new Error(`${label}: not all events visible after 300 s`);
    const shown = await namesShown(partnerId);
    const now = performance.now();
    renames.forEach((rename, index) => {
      if (!visibleAt.has(index) && shown.get(rename.propertyId) === rename.name) visibleAt.set(index, now);
    });
    if (hotDoneAt === undefined && (await storedReservations(hot)) - storedBefore >= hotEvents)
      hotDoneAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return {
    othersLagMs: renames.map((_, index) => (visibleAt.get(index) ?? 0) - (publishedAt.get(index) ?? 0)),
    hotDrainSeconds: ((hotDoneAt ?? started) - started) / 1000,
    publishSeconds,
  };
}

const ms = (value: number) => `${formatNumber(value, 0)} ms`;

export async function measureEvents(): Promise<SectionResult> {
  const nowMs = Date.now();
  const partnerId = await createBenchPartner('events', nowMs);
  progress(`events: sponsoring ${SPREAD_PROPERTIES + 1} hosts`);
  const spread: number[] = [];
  for (let index = 0; index < SPREAD_PROPERTIES; index++)
    spread.push(
      (await sponsoredProperty(partnerId, `events-${index}`, nowMs, ['assistant', 'upsells', 'guidebook']))
        .propertyId,
    );
  const { propertyId: hot } = await sponsoredProperty(partnerId, 'events-hot', nowMs);

  const rates = await measureRates(spread, hot, nowMs);
  const costs = await measureCosts(partnerId, spread, nowMs);
  const visibility = await measureVisibility(nowMs);
  return report(rates, costs, visibility);
}

/**
 * Publish-to-visible through the local server: one rename at a time, then renames alone (the
 * control) and among a hot property's bookings.
 */
interface Visibility {
  readonly lags: number[];
  readonly control: HotResult;
  readonly withHot: HotResult;
}

/** Lag and the hot property through the local server: a partner of its own, so that one page lists it all. */
async function measureVisibility(nowMs: number): Promise<Visibility> {
  const lagPartner = await createBenchPartner('events-lag', nowMs);
  progress(`events: sponsoring ${OTHER_PROPERTIES + 1} hosts for the lag`);
  const others: number[] = [];
  for (let index = 0; index < OTHER_PROPERTIES; index++)
    others.push((await sponsoredProperty(lagPartner, `events-lag-${index}`, nowMs)).propertyId);
  const { propertyId: lagHot } = await sponsoredProperty(lagPartner, 'events-lag-hot', nowMs);
  progress(`events: publish-to-visible lag, ${LAG_SAMPLES} events one at a time`);
  const lags = await measureLag(lagPartner, others);
  progress(`events: ${OTHER_PROPERTIES} renames alone (the control)`);
  const control = await measureHot(lagPartner, lagHot, others, 0, nowMs, 'Control', 10_000);
  progress(
    `events: ${OTHER_PROPERTIES} renames among ${formatNumber(HOT_EVENTS, 0)} bookings of one property`,
  );
  const withHot = await measureHot(lagPartner, lagHot, others, HOT_EVENTS, nowMs, 'Hot', 20_000);
  return { lags, control, withHot };
}

/** The percentiles of the three lag measurements. */
function lagFigures({ lags, control, withHot }: Visibility) {
  const sortedLags = [...lags].sort((a, b) => a - b);
  const lagP50 = percentile(sortedLags, 50);
  const lagP99 = percentile(sortedLags, 99);
  const sortedOthers = [...withHot.othersLagMs].sort((a, b) => a - b);
  const sortedControl = [...control.othersLagMs].sort((a, b) => a - b);
  const othersP99 = percentile(sortedOthers, 99);
  return { sortedLags, lagP50, lagP99, sortedOthers, sortedControl, othersP99 };
}

type LagFigures = ReturnType<typeof lagFigures>;
type Costs = Awaited<ReturnType<typeof measureCosts>>;

/** Whether a new booking and a move of its dates cost the same units at the small and the large history. */
function sameCostWhateverHistory(history: readonly HistoryRow[]): boolean {
  const historyOf = (size: number, kind: string) =>
    history.find((row) => row.history === size && row.kind.startsWith(kind));
  return ['ReservationChanged, a new booking', 'ReservationChanged, dates moved'].every((kind) => {
    const small = historyOf(HISTORY_SIZES[0] ?? 0, kind);
    const large = historyOf(HISTORY_SIZES[1] ?? 0, kind);
    return (
      small !== undefined &&
      large !== undefined &&
      small.requests === large.requests &&
      small.readUnits === large.readUnits &&
      small.writeUnits === large.writeUnits
    );
  });
}

function report(rates: readonly RateRow[], costs: Costs, visibility: Visibility): SectionResult {
  const { withHot } = visibility;
  const lagged = lagFigures(visibility);
  return {
    id: 'events',
    title: "9. The platform's events",
    method:
      "The consumer's own handler runs in this process against the local server's DynamoDB Local: SQS batches of 10 EventBridge events, one batch after another, as Lambda feeds one instance (its records side by side, one property's bookings sharing transactions). Units are the ConsumedCapacity DynamoDB Local reports for each request, per event, priced on demand. The 100,000-reservation history is applied through the same consumer function, a hundred events per call. The lag runs through the local server: `publishPlatformEvents` (the code of `events publish`) puts events on its bus, its rule, queue and event source mapping (1-second batching window, 5 pollers) invoke the consumer in the server's Lambda emulation, and GET /properties is read every 20 ms until the new name shows.",
    tables: eventTables(rates, costs, visibility.lags, lagged),
    budgets: eventBudgets(rates, costs, withHot, lagged),
    notes: [
      `Publishing ${formatNumber(HOT_EVENTS + OTHER_PROPERTIES, 0)} events took ${formatNumber(withHot.publishSeconds, 1)} s (PutEvents, ten entries per call, one call after another).`,
      'The lag includes the batching window of the event source mapping (1 s): the consumer waits up to a second for a fuller batch. On AWS the queue and the poller add their own latency, typically tens of milliseconds.',
      'DynamoDB Local is far slower per request than DynamoDB; the ratios to the bare transaction rate carry over, the absolute rates do not.',
      "A booking of a channel this consumer instance has not seen in the booking's month reads that month's BOOKED# item, strongly consistent, to judge the channel cap (\"a channel new to its month\" rows): one request more, and read units by the item's size, which grows with the month's bookings, not with the history, up to the cap's bound (130,088 B, 32 read units). Once per channel, month and instance; the other rows are measured with each sample's channel already booked in its month.",
    ],
    data: { rates, costs, lags: visibility.lags, control: visibility.control, withHot },
  };
}

/** The rates of one consumer instance, the units per event, and publish-to-visible. */
function eventTables(
  rates: readonly RateRow[],
  costs: Costs,
  lags: readonly number[],
  { sortedLags, lagP50, lagP99, sortedOthers, sortedControl, othersP99 }: LagFigures,
): Table[] {
  return [
    {
      caption: `One consumer instance: ${formatNumber(RATE_EVENTS, 0)} events in batches of ${BATCH}, one batch after another, ${RATE_ROUNDS} rounds (median, min–max); baseline: bare 3-action transactions, ${BATCH} side by side, measured right before each round`,
      columns: ['Workload', 'events/s', 'batch p50, ms', 'batch p99, ms', '× bare transactions/s'],
      rows: rates.map((row) => [
        row.workload,
        formatSummary(row.eventsPerSecond, 0),
        formatSummary(row.batchP50, 1),
        formatSummary(row.batchP99, 1),
        formatSummary(row.vsBare, 2),
      ]),
    },
    {
      caption: `DynamoDB per event, through the consumer, one event per batch (median of ${COST_SAMPLES}); on-demand prices`,
      columns: ['Event', 'requests', 'read units', 'write units', '$ per million events'],
      rows: [...costs.kinds, ...costs.history].map((row) => [
        row.kind,
        formatNumber(row.requests, 1),
        formatNumber(row.readUnits, 1),
        formatNumber(row.writeUnits, 1),
        `$${formatNumber(row.dollarsPerMillion, 2)}`,
      ]),
    },
    {
      caption:
        'Publish-to-visible through the local server (PutEvents → rule → queue → event source mapping → consumer → GET /properties)',
      columns: ['Measurement', 'events', 'p50', 'p99', 'max'],
      rows: [
        [
          'One rename at a time',
          String(lags.length),
          ms(lagP50),
          ms(lagP99),
          ms(sortedLags.at(-1) ?? Number.NaN),
        ],
        [
          `${OTHER_PROPERTIES} renames published alone (control)`,
          String(sortedControl.length),
          ms(percentile(sortedControl, 50)),
          ms(percentile(sortedControl, 99)),
          ms(sortedControl.at(-1) ?? Number.NaN),
        ],
        [
          `The same renames among ${formatNumber(HOT_EVENTS, 0)} bookings of one hot property`,
          String(sortedOthers.length),
          ms(percentile(sortedOthers, 50)),
          ms(othersP99),
          ms(sortedOthers.at(-1) ?? Number.NaN),
        ],
      ],
    },
  ];
}

/** The lag budgets, with and without a hot property; the same cost whatever the history; a batch's shared transactions. */
function eventBudgets(
  rates: readonly RateRow[],
  costs: Costs,
  withHot: HotResult,
  { lagP50, lagP99, othersP99 }: LagFigures,
): BudgetCheck[] {
  const spreadRate = rates[0];
  const hotRate = rates[1];
  return [
    {
      name: 'Publish-to-visible lag, p99 (one event at a time)',
      budget: `≤ ${ms(LAG_BUDGET_MS)} (the issue: visible within 5 seconds of publish returning)`,
      measured: `${ms(lagP99)} (p50 ${ms(lagP50)})`,
      pass: lagP99 <= LAG_BUDGET_MS,
    },
    {
      name: `Other properties' events while ${formatNumber(HOT_EVENTS, 0)} events of one hot property are queued, lag p99`,
      budget: `≤ ${ms(LAG_BUDGET_MS)}, the same budget as without the hot property`,
      measured: `${ms(othersP99)}; the hot property's ${formatNumber(HOT_EVENTS, 0)} bookings all stored after ${formatNumber(withHot.hotDrainSeconds, 1)} s`,
      pass: othersP99 <= LAG_BUDGET_MS,
    },
    {
      name: 'A ReservationChanged costs the same whatever the history',
      budget: `equal requests, read and write units at ${HISTORY_SIZES.map((size) => formatNumber(size, 0)).join(' and ')} reservations`,
      measured: costs.history
        .map(
          (row) =>
            `${row.kind}: ${formatNumber(row.requests, 1)} req, ${formatNumber(row.readUnits, 1)} RU, ${formatNumber(row.writeUnits, 1)} WU`,
        )
        .join('; '),
      pass: sameCostWhateverHistory(costs.history),
    },
    {
      name: "One property's bookings drain faster than bookings spread over properties (a batch shares transactions)",
      budget: '≥ 2 × the spread rate',
      measured: `${formatNumber(hotRate?.eventsPerSecond.median ?? Number.NaN, 0)} against ${formatNumber(spreadRate?.eventsPerSecond.median ?? Number.NaN, 0)} events/s`,
      pass:
        (hotRate?.eventsPerSecond.median ?? 0) >=
        2 * (spreadRate?.eventsPerSecond.median ?? Number.POSITIVE_INFINITY),
    },
  ];
}
