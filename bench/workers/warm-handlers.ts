/**
 * Worker of section 3 (run by bench/sections/warm-handlers.ts in its own process, because it
 * mocks the DynamoDB DocumentClient class for the whole process): warm per-invocation cost of
 * each API handler and of the authorizer, DynamoDB answered by aws-sdk-client-mock with
 * realistic items (ten years of one booking a day turned into the property's aggregates).
 * Prints one JSON document (WarmHandlersOutput) on stdout.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { GRANTABLE_SCOPES, SCOPES } from '../../core/domain/scopes';
import {
  ADMITTED_RATE_WINDOW_WRITE,
  API_TARGETS,
  authorizerEvent,
  lambdaContext,
  proxyEvent,
} from '../lib/events';
import { percentile } from '../lib/stats';
import type { WarmHandlersOutput, WarmRun, WarmTarget } from '../sections/warm-handlers';

const RUNS = Number(process.env.BENCH_WARM_RUNS ?? 3);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 500);
const INVOCATIONS = Number(process.env.BENCH_WARM_INVOCATIONS ?? 4_000);
const PARTNER_ID = 1;
const PROPERTY_ID = 2;

// Counts runtime code generation (zod's JIT compiles object parsers with `new Function`).
let compilations = 0;
const RealFunction = globalThis.Function;
globalThis.Function = new Proxy(RealFunction, {
  construct(target, args, newTarget) {
    compilations++;
    return Reflect.construct(target, args, newTarget);
  },
  apply(target, self, args) {
    compilations++;
    return Reflect.apply(target, self, args);
  },
});

const dynamo = mockClient(DynamoDBDocumentClient);
const { handler: authorizer } = await import('../../lambdas/api/authorizer');
const { forgetCachedKeys } = await import('../../lambdas/api/authenticate');
const { handler: usage } = await import('../../lambdas/api/usage');
const { handler: properties } = await import('../../lambdas/api/properties');
const { handler: pricingSignals } = await import('../../lambdas/api/pricing-signals');
const { dynamoDb, tableName } = await import('../../lambdas/data/db');
const { aggregatesOf } = await import('../../lambdas/data/reservations/apply');
const { generateApiKey } = await import('../../core/domain/api-key');
const { benchReservations } = await import('../lib/datasets');
const compilationsAtImport = compilations;

// --- realistic DynamoDB answers -------------------------------------------------------------
const nowMs = Date.now();
const key = generateApiKey();
const apiKeyItem = {
  PK: `APIKEY#${key.prefix}`,
  SK: 'APIKEY',
  prefix: key.prefix,
  partnerId: PARTNER_ID,
  digest: new Uint8Array(key.digest),
  scopes: [...SCOPES],
  state: 'active',
  createdAt: new Date(nowMs - 86_400_000).toISOString(),
};
// The authorizer also reads the partner's standing: not suspended, its agreement's scopes.
const partnerItem = { PK: `PARTNER#${PARTNER_ID}`, SK: 'PARTNER', scopes: [...GRANTABLE_SCOPES] };
const propertyItem = {
  PK: `PARTNER#${PARTNER_ID}`,
  SK: `PROPERTY#${String(PROPERTY_ID).padStart(12, '0')}`,
  id: PROPERTY_ID,
  partnerId: PARTNER_ID,
  hostUserId: 1,
  name: 'Harbour View Apartments',
  units: 4,
  pmsHotelId: 'PMS-1002',
  createdAt: new Date(nowMs - 86_400_000).toISOString(),
};
const sponsorships = [5, 4, 3].map((seats, index) => ({ hostUserId: index + 1, activeSeats: seats }));
const propertyList = [
  'Seaside Loft',
  'Harbour View Apartments',
  'Alpine Hut No. 7',
  'City Rooms Central',
  'City Rooms Riverside',
].map((name, index) => ({ id: index + 1, name }));
// Ten years of history, one booking a day, as the scaling section generates it.
const reservations = benchReservations(PROPERTY_ID, 0, 3_650, nowMs);
const aggregateItems = [...aggregatesOf(reservations)]
  .map(([sk, attributes]) => ({ PK: `PROPERTY#${PROPERTY_ID}`, SK: sk, ...Object.fromEntries(attributes) }))
  .sort((a, b) => a.SK.localeCompare(b.SK));

// The mock must cost next to nothing: answers are indexed once and cached per key range.
const confirmedByDay = new Map<string, { reservation: (typeof reservations)[number] }[]>();
for (const reservation of reservations) {
  if (reservation.status !== 'confirmed') continue;
  const day = reservation.booked_at.slice(0, 10);
  confirmedByDay.set(day, [...(confirmedByDay.get(day) ?? []), { reservation }]);
}
const answers = new Map<string, { Items: Record<string, unknown>[] }>();

function answerQuery(input: QueryCommandInput): { Items: Record<string, unknown>[] } {
  const values = input.ExpressionAttributeValues ?? {};
  if (values[':host']) return { Items: sponsorships };
  if (values[':from'] === undefined) return { Items: propertyList };
  const from = String(values[':from']);
  const to = String(values[':to']);
  const cacheKey = `${input.IndexName ?? ''}|${from}|${to}`;
  let answer = answers.get(cacheKey);
  if (!answer) {
    answer = input.IndexName
      ? {
          Items: (confirmedByDay.get(from.slice(0, 10)) ?? []).filter(
            ({ reservation }) => reservation.booked_at >= from && `${reservation.booked_at}#` <= to,
          ),
        }
      : { Items: aggregateItems.filter((item) => item.SK >= from && item.SK <= to) };
    answers.set(cacheKey, answer);
  }
  return answer;
}

dynamo.on(UpdateCommand).resolves(ADMITTED_RATE_WINDOW_WRITE);
dynamo.on(GetCommand).callsFake((input: { Key?: Record<string, unknown> }) => {
  const sk = String(input.Key?.SK ?? '');
  if (sk === 'APIKEY') return { Item: input.Key?.PK === apiKeyItem.PK ? apiKeyItem : undefined };
  if (sk === partnerItem.SK) return { Item: input.Key?.PK === partnerItem.PK ? partnerItem : undefined };
  if (sk === propertyItem.SK) return { Item: propertyItem };
  return {};
});
dynamo.on(QueryCommand).callsFake(answerQuery);

// --- measurement ------------------------------------------------------------------------------
interface Invocation {
  /** Untimed preparation (cache resets, the next key prefix). */
  prepare(index: number): void;
  invoke(index: number): Promise<boolean>;
}

async function measure(invocation: Invocation, run: number): Promise<WarmRun> {
  dynamo.resetHistory();
  for (let index = 0; index < WARM_UP; index++) {
    invocation.prepare(run * 1_000_000 + 500_000 + index);
    await invocation.invoke(run * 1_000_000 + 500_000 + index);
  }
  const timings: number[] = [];
  let failures = 0;
  const compilationsBefore = compilations;
  for (let index = 0; index < INVOCATIONS; index++) {
    // The mock records every call; dropping the record now and then keeps its memory flat.
    if (index % 500 === 0) dynamo.resetHistory();
    invocation.prepare(run * 1_000_000 + index);
    const started = performance.now();
    const ok = await invocation.invoke(run * 1_000_000 + index);
    timings.push(performance.now() - started);
    if (!ok) failures++;
  }
  timings.sort((a, b) => a - b);
  return {
    invocations: INVOCATIONS,
    p50Ms: percentile(timings, 50),
    p99Ms: percentile(timings, 99),
    meanMs: timings.reduce((sum, value) => sum + value, 0) / timings.length,
    failures,
    compilations: compilations - compilationsBefore,
  };
}

/**
 * Every admitted request is a write of the key's window; each prefix (12 characters, one
 * namespace letter per handler) gets at most 100 requests in the process's lifetime.
 */
function keyPrefixFor(namespace: string, index: number): string {
  return `svc_${namespace}${String(Math.floor(index / 100)).padStart(7, '0')}`;
}

function apiInvocation(
  handler: typeof usage,
  target: (typeof API_TARGETS)[number],
  namespace: string,
): Invocation {
  const eventFor = (index: number) =>
    proxyEvent({
      path: `/partner-api/v1${target.path}`,
      resource: `/partner-api/v1${target.resource}`,
      partnerId: PARTNER_ID,
      keyPrefix: keyPrefixFor(namespace, index),
      pathParameters: target.id === 'pricingSignals' ? { propertyId: String(PROPERTY_ID) } : undefined,
    });
  let event = eventFor(0);
  return {
    prepare(index) {
      event = eventFor(index);
    },
    async invoke() {
      const result: APIGatewayProxyResult = await handler(event, lambdaContext);
      return result.statusCode === 200;
    },
  };
}

const authorizerHeaders = { Authorization: `Bearer ${key.key}` };
const invocations: { id: string; label: string; invocation: Invocation }[] = [
  {
    id: 'baseline',
    label: 'baseline: one mocked DocumentClient GetCommand',
    invocation: {
      prepare() {},
      async invoke() {
        const { Item } = await dynamoDb().send(
          new GetCommand({ TableName: tableName(), Key: { PK: propertyItem.PK, SK: propertyItem.SK } }),
        );
        return Item !== undefined;
      },
    },
  },
  {
    id: 'authorizerHit',
    label: 'authorizer, key cache hit',
    invocation: {
      prepare() {},
      async invoke() {
        const result = await authorizer(authorizerEvent(authorizerHeaders));
        return result.policyDocument.Statement[0]?.Effect === 'Allow';
      },
    },
  },
  {
    id: 'authorizerMiss',
    label: 'authorizer, key cache miss (one GetItem)',
    invocation: {
      prepare() {
        forgetCachedKeys();
      },
      async invoke() {
        const result = await authorizer(authorizerEvent(authorizerHeaders));
        return result.policyDocument.Statement[0]?.Effect === 'Allow';
      },
    },
  },
  ...API_TARGETS.map((target, index) => ({
    id: target.id,
    label: target.label,
    invocation: apiInvocation(
      target.id === 'usage' ? usage : target.id === 'properties' ? properties : pricingSignals,
      target,
      'uvw'.charAt(index),
    ),
  })),
];

const targets: WarmTarget[] = [];
for (const { id, label, invocation } of invocations) {
  const before = compilations;
  invocation.prepare(0);
  const started = performance.now();
  const ok = await invocation.invoke(0);
  const firstInvocationMs = performance.now() - started;
  if (!ok) throw new Error(`${label}: the first invocation did not succeed`);
  const compilationsFirstInvocation = compilations - before;
  const runs: WarmRun[] = [];
  for (let run = 1; run <= RUNS; run++) runs.push(await measure(invocation, run));
  process.stderr.write(`[bench worker] warm handlers: ${label} done\n`);
  targets.push({ id, label, firstInvocationMs, compilationsFirstInvocation, runs });
}

const output: WarmHandlersOutput = {
  warmUp: WARM_UP,
  invocationsPerRun: INVOCATIONS,
  compilationsAtImport,
  aggregateItems: aggregateItems.length,
  reservations: reservations.length,
  targets,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
