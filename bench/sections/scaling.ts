import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { SCOPES } from '../../core/domain/scopes';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../lambdas/api/response-encoding';
import { applyReservations } from '../lib/apply-events';
import { runWorker } from '../lib/child';
import { benchReservations, createBenchPartner, sponsoredProperty, writeProperties } from '../lib/datasets';
import type { DynamoUsage } from '../lib/dynamo-meter';
import type { Metered } from '../lib/in-process';
import { benchKeyPrefix, bodyBytes, callApi, resultHeader } from '../lib/in-process';
import { progress } from '../lib/progress';
import type { BudgetCheck, SectionResult, Table } from '../lib/report';
import type { ServiceProcess } from '../lib/service-process';
import { mintKeys } from '../lib/service-process';
import type { Summary } from '../lib/stats';
import { formatBytes, formatNumber, formatSummary, pairedRatios, summarize } from '../lib/stats';
import { dollarsPerMillion } from './dynamo-cost';

const RESERVATION_STEPS = [100, 10_000, 100_000];
const LOOKBACKS = [90, 365];
const PRICING_CALLS = 25;
const PROPERTY_SIZES = [100, 10_000, 50_000];
const PROPERTIES_CALLS = 3;
const LAMBDA_TIMEOUT_MS = 15_000;
const LARGE_LISTS_WORKER = fileURLToPath(new URL('../workers/large-lists.ts', import.meta.url));

export interface LargeListCase {
  readonly properties: number;
  readonly acceptsGzip: boolean;
  readonly statusCode: number;
  readonly contentEncoding?: string;
  readonly problemType?: string;
  readonly problemDetail?: string;
  readonly payloadBytes: number;
  readonly withinLambdaLimit: boolean;
  readonly ms: number;
}

export interface LargeListsOutput {
  readonly cases: readonly LargeListCase[];
}

interface UsageSummary {
  readonly requests: Summary;
  readonly itemsRead: Summary;
  readonly readUnits: Summary;
  readonly writeUnits: Summary;
  readonly ms: Summary;
}

function usageSummary(calls: readonly Metered<unknown>[]): UsageSummary {
  const pick = (select: (usage: DynamoUsage) => number) => summarize(calls.map((call) => select(call.usage)));
  return {
    requests: pick((usage) => usage.requests),
    itemsRead: pick((usage) => usage.itemsRead),
    readUnits: pick((usage) => usage.readCapacity),
    writeUnits: pick((usage) => usage.writeCapacity),
    ms: summarize(calls.map((call) => call.ms)),
  };
}

interface PricingRow extends UsageSummary {
  readonly reservations: number;
  readonly lookbackDays: number;
  readonly importSeconds: number;
  readonly importedPerSecond: number;
  readonly statuses: string;
  /** Latency of each call, and of the 100-reservation property's call right after it. */
  readonly latencies: number[];
  readonly baselineLatencies: number[];
  readonly latencyRatio: Summary;
}

/**
 * One property grows to each size in turn; a second one keeps 100 reservations and is called
 * right after every timed call of the first, so each latency has a baseline from the same moment.
 */
async function measurePricing(nowMs: number): Promise<PricingRow[]> {
  const partnerId = await createBenchPartner('pricing', nowMs);
  const { propertyId: growing } = await sponsoredProperty(partnerId, 'growing', nowMs);
  const { propertyId: small } = await sponsoredProperty(partnerId, 'small', nowMs);
  await applyReservations(small, benchReservations(small, 0, RESERVATION_STEPS[0] ?? 100, nowMs), nowMs);
  const rows: PricingRow[] = [];
  let imported = 0;
  for (const size of RESERVATION_STEPS) {
    const batch = benchReservations(growing, imported, size, nowMs);
    progress(
      `scaling: applying ${formatNumber(batch.length, 0)} reservations (property now ${formatNumber(size, 0)})`,
    );
    const started = performance.now();
    const applied = await applyReservations(growing, batch, nowMs);
    const importSeconds = (performance.now() - started) / 1000;
    if (applied !== batch.length) throw new Error(`Applied ${applied} of ${batch.length}`);
    imported = size;
    for (const lookbackDays of LOOKBACKS) {
      const keyPrefix = benchKeyPrefix();
      const baselinePrefix = benchKeyPrefix();
      const query = { lookback_days: String(lookbackDays) };
      const call = (propertyId: number, prefix: string) =>
        callApi('pricingSignals', { partnerId, keyPrefix: prefix, propertyId, query });
      for (let warmUp = 0; warmUp < 2; warmUp++) {
        await call(growing, keyPrefix);
        await call(small, baselinePrefix);
      }
      const calls: Metered<{ statusCode: number }>[] = [];
      const baselineCalls: Metered<{ statusCode: number }>[] = [];
      for (let index = 0; index < PRICING_CALLS; index++) {
        calls.push(await call(growing, keyPrefix));
        baselineCalls.push(await call(small, baselinePrefix));
      }
      const latencies = calls.map((entry) => entry.ms);
      const baselineLatencies = baselineCalls.map((entry) => entry.ms);
      rows.push({
        reservations: size,
        lookbackDays,
        importSeconds,
        importedPerSecond: batch.length / importSeconds,
        statuses: [...new Set([...calls, ...baselineCalls].map((entry) => entry.value.statusCode))].join(
          ', ',
        ),
        latencies,
        baselineLatencies,
        latencyRatio: pairedRatios(latencies, baselineLatencies),
        ...usageSummary(calls),
      });
    }
  }
  return rows;
}

interface HttpAnswer {
  readonly status: number;
  readonly contentEncoding?: string;
  readonly wireBytes: number;
  readonly jsonBytes: number;
  readonly ms: number;
}

/** GET with node:http, so that a gzip body is seen as sent (fetch would decompress it). */
function httpGet(url: string, headers: Record<string, string>): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        const encoding = response.headers['content-encoding'];
        let jsonBytes = body.length;
        if (encoding === 'gzip') {
          try {
            jsonBytes = gunzipSync(body).length;
          } catch {
            jsonBytes = Number.NaN;
          }
        }
        resolve({
          status: response.statusCode ?? 0,
          contentEncoding: encoding,
          wireBytes: body.length,
          jsonBytes,
          ms: performance.now() - started,
        });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

interface PropertiesRow extends UsageSummary {
  readonly properties: number;
  readonly createSeconds: number;
  readonly acceptsGzip: boolean;
  readonly statuses: string;
  readonly contentEncoding: string;
  readonly bodyBytes: number;
  readonly jsonBytes: number;
  readonly payloadBytes: number;
  readonly problemType?: string;
  readonly http: {
    readonly statuses: string;
    readonly contentEncoding: string;
    readonly wireBytes: number;
    readonly jsonBytes: number;
    readonly ms: Summary;
  };
}

const MODES: readonly { acceptsGzip: boolean; headers: Record<string, string> }[] = [
  { acceptsGzip: true, headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip' } },
  { acceptsGzip: false, headers: { Accept: 'application/json' } },
];

/** One partner grows to each size in turn (100, then 9,900 more, then 40,000 more). */
async function measureProperties(service: ServiceProcess, nowMs: number): Promise<PropertiesRow[]> {
  const rows: PropertiesRow[] = [];
  const partnerId = await createBenchPartner('properties', nowMs);
  const [key = ''] = await mintKeys(partnerId, 1, [...SCOPES]);
  const firstId = 100_000_000 + partnerId * 1_000_000;
  let written = 0;
  for (const size of PROPERTY_SIZES) {
    progress(
      `scaling: writing ${formatNumber(size - written, 0)} properties (partner now ${formatNumber(size, 0)})`,
    );
    const started = performance.now();
    await writeProperties(partnerId, size - written, firstId + written, nowMs);
    const createSeconds = (performance.now() - started) / 1000;
    written = size;
    for (const mode of MODES) {
      const keyPrefix = benchKeyPrefix();
      const calls: Metered<Awaited<ReturnType<typeof callApi>>['value']>[] = [];
      for (let call = 0; call < PROPERTIES_CALLS; call++) {
        calls.push(await callApi('properties', { partnerId, keyPrefix, headers: mode.headers }));
      }
      const last = calls.at(-1)?.value;
      if (!last) throw new Error('No call was made');
      const body = bodyBytes(last);
      const encoding = resultHeader(last, 'content-encoding');
      const json = encoding === 'gzip' ? gunzipSync(body) : body;
      const http: HttpAnswer[] = [];
      for (let call = 0; call < PROPERTIES_CALLS; call++) {
        http.push(
          await httpGet(`${service.runtime.apiBaseUrl}/properties`, {
            ...mode.headers,
            Authorization: `Bearer ${key}`,
          }),
        );
      }
      const lastHttp = http.at(-1);
      rows.push({
        properties: size,
        createSeconds,
        acceptsGzip: mode.acceptsGzip,
        statuses: [...new Set(calls.map((call) => call.value.statusCode))].join(', '),
        contentEncoding: encoding ?? 'identity',
        bodyBytes: body.length,
        jsonBytes: json.length,
        payloadBytes: Buffer.byteLength(JSON.stringify(last)),
        problemType:
          last.statusCode >= 400
            ? (JSON.parse(json.toString()) as { type?: string }).type?.replace(/^.*\/problems\//, '')
            : undefined,
        http: {
          statuses: [...new Set(http.map((answer) => answer.status))].join(', '),
          contentEncoding: lastHttp?.contentEncoding ?? 'identity',
          wireBytes: lastHttp?.wireBytes ?? Number.NaN,
          jsonBytes: lastHttp?.jsonBytes ?? Number.NaN,
          ms: summarize(http.map((answer) => answer.ms)),
        },
        ...usageSummary(calls),
      });
    }
  }
  return rows;
}

export async function measureScaling(service: ServiceProcess): Promise<SectionResult> {
  const nowMs = Date.now();
  const pricing = await measurePricing(nowMs);
  const properties = await measureProperties(service, nowMs);
  progress('scaling: GET /properties far beyond the data set (mocked DynamoDB, own process)');
  const beyond = await runWorker<LargeListsOutput>(LARGE_LISTS_WORKER, {
    STAGE: 'local',
    TABLE_NAME: 'bench',
    AWS_REGION: 'eu-west-1',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    DYNAMODB_ENDPOINT: '',
  });
  return report(pricing, properties, beyond.cases);
}

function report(
  pricing: readonly PricingRow[],
  properties: readonly PropertiesRow[],
  beyond: readonly LargeListCase[],
): SectionResult {
  return {
    id: 'scaling',
    title: '5. Scaling',
    method: [
      'Pricing signals: one property of a fresh bench partner grows from 100 to 10,000 to 100,000 reservations as `ReservationChanged` events through the consumer’s own apply function, 32 at a time (the time of each step is reported; the 100,000-reservation data set is built once per run, in steps, so each size is the previous one plus more history). Reservation i is booked on day today − (i × 2311 mod 3650), so any size spreads evenly over ten years; 1 in 13 is cancelled.',
      'After each step the real handler is invoked in-process against DynamoDB Local with the DynamoDB meter, for lookback 90 and 365. The whole-day part of the window comes from ≤ 13 monthly booking aggregates and ≤ 2 monthly night aggregates; the two partial edge days are read as individual bookings, so that part grows with bookings per day (density), not with history: ≈ 0.03, 2.7 and 27 bookings a day at the three sizes.',
      'Properties: one fresh partner grows to 100, 10,000 and 50,000 properties, written with BatchWriteItem from `propertyCreationItems` (conditions stripped), then GET /properties is called in-process (status, encoding, body and payload bytes, items and read units) and over HTTP through the local server (what a client receives), with and without `Accept-Encoding: gzip`.',
    ].join(' '),
    tables: [pricingTable(pricing), propertiesTable(properties), beyondTable(beyond)],
    budgets: [...pricingBudgets(pricing), ...propertiesBudgets(properties, beyond)],
    notes: scalingNotes(properties, beyond),
    data: { pricing, properties, beyond, lambdaResponseLimitBytes: LAMBDA_RESPONSE_LIMIT_BYTES },
  };
}

/** Pricing signals of one property as its history grows. */
function pricingTable(pricing: readonly PricingRow[]): Table {
  return {
    caption: `Pricing signals of one property as its history grows (same property; reservations spread over ten years; ${PRICING_CALLS} calls per row, in-process handler against DynamoDB Local)`,
    columns: [
      'reservations',
      'lookback_days',
      'bound (lookback + 30)',
      'requests',
      'items read',
      'read units',
      'latency ms',
      '100-reservation property, same moment, ms',
      'latency ratio',
      'import of this step',
    ],
    rows: pricing.map((row) => [
      formatNumber(row.reservations, 0),
      String(row.lookbackDays),
      String(row.lookbackDays + 30),
      formatSummary(row.requests, 0),
      formatSummary(row.itemsRead, 0),
      formatSummary(row.readUnits, 1),
      formatSummary(row.ms, 1),
      formatSummary(summarize(row.baselineLatencies), 1),
      formatSummary(row.latencyRatio, 2),
      `${formatNumber(row.importSeconds, 1)} s (${formatNumber(row.importedPerSecond, 0)}/s)`,
    ]),
  };
}

/** GET /properties for partners with more and more properties, in-process and over HTTP. */
function propertiesTable(properties: readonly PropertiesRow[]): Table {
  return {
    caption: `GET /properties for a partner with 100, 10,000 and 50,000 properties (names like "Holiday apartment number 12345"; in-process handler with the meter, then over HTTP through the local server; ${PROPERTIES_CALLS} calls each)`,
    columns: [
      'properties',
      'client sends',
      'status',
      'encoding',
      'body',
      'JSON',
      'Lambda payload (% of 6 MB)',
      'items read',
      'read units',
      '$ per million calls',
      'in-process ms',
      'HTTP: status, bytes on the wire',
      'HTTP ms',
      'write of this step',
    ],
    rows: properties.map((row) => [
      formatNumber(row.properties, 0),
      row.acceptsGzip ? 'Accept-Encoding: gzip' : 'no Accept-Encoding',
      row.problemType ? `${row.statuses} (${row.problemType})` : row.statuses,
      row.contentEncoding,
      formatBytes(row.bodyBytes),
      formatBytes(row.jsonBytes),
      `${formatBytes(row.payloadBytes)} (${formatNumber((100 * row.payloadBytes) / LAMBDA_RESPONSE_LIMIT_BYTES, 1)}%)`,
      formatSummary(row.itemsRead, 0),
      formatSummary(row.readUnits, 1),
      `$${formatNumber(dollarsPerMillion(row.readUnits.median, row.writeUnits.median), 2)}`,
      formatSummary(row.ms, 0),
      `${row.http.statuses}, ${formatBytes(row.http.wireBytes)} ${row.http.contentEncoding}`,
      formatSummary(row.http.ms, 0),
      `${formatNumber(row.createSeconds, 1)} s`,
    ]),
  };
}

/** GET /properties beyond the data set, DynamoDB mocked. */
function beyondTable(beyond: readonly LargeListCase[]): Table {
  return {
    caption:
      'Beyond the data set: the real properties handler with DynamoDB mocked (same item shape, 5,000 items per Query page)',
    columns: [
      'properties',
      'client sends',
      'status',
      'encoding / problem',
      'Lambda payload',
      'within 6 MB',
      'handler ms',
    ],
    rows: beyond.map((row) => [
      formatNumber(row.properties, 0),
      row.acceptsGzip ? 'Accept-Encoding: gzip' : 'no Accept-Encoding',
      String(row.statusCode),
      row.problemType
        ? `${row.problemType}: ${row.problemDetail ?? ''}`
        : (row.contentEncoding ?? 'identity'),
      formatBytes(row.payloadBytes),
      row.withinLambdaLimit ? 'yes' : 'NO',
      formatNumber(row.ms, 0),
    ]),
  };
}

/** Where the largest partner's payload and time would reach Lambda's limits, and any 5xx beyond the data set. */
function scalingNotes(properties: readonly PropertiesRow[], beyond: readonly LargeListCase[]): string[] {
  const largest = properties.filter((row) => row.properties === Math.max(...PROPERTY_SIZES));
  const notes: string[] = [];
  for (const row of largest) {
    const perProperty = row.payloadBytes / row.properties;
    const msPerProperty = row.ms.median / row.properties;
    if (row.statuses === '200')
      notes.push(
        `${row.acceptsGzip ? 'With gzip' : 'Without gzip'}: ${formatNumber(perProperty, 1)} payload bytes per property at ${formatNumber(row.properties, 0)}, so Lambda's 6 MB response limit is reached near ${formatNumber(LAMBDA_RESPONSE_LIMIT_BYTES / perProperty, 0)} properties (extrapolated linearly; the handler's own thresholds apply first, see the table above); ${formatNumber(msPerProperty * 1000, 1)} µs per property in-process against DynamoDB Local would reach the ${LAMBDA_TIMEOUT_MS / 1000} s function timeout near ${formatNumber(LAMBDA_TIMEOUT_MS / msPerProperty, 0)} properties.`,
      );
  }
  for (const row of beyond.filter((item) => item.statusCode >= 500 && item.problemType)) {
    notes.push(
      `${formatNumber(row.properties, 0)} properties with gzip: ${row.statusCode} ${row.problemType}. A named problem, so a clear error, but a 5xx: it counts in the API's 5xx alarm and clients treat 5xx as retryable; a 4xx (or paginating GET /properties) would say "this will not work by retrying".`,
    );
  }
  return notes;
}

/** The pricing signals' reads bounded and latency flat as the history grows, per lookback. */
function pricingBudgets(pricing: readonly PricingRow[]): BudgetCheck[] {
  const maxPricingItems = (lookback: number) =>
    Math.max(...pricing.filter((row) => row.lookbackDays === lookback).map((row) => row.itemsRead.max));
  return [
    ...LOOKBACKS.map((lookback) => {
      const rows = pricing.filter((row) => row.lookbackDays === lookback);
      const requests = new Set(rows.map((row) => row.requests.median));
      return {
        name: `pricing signals, lookback ${lookback}: reads bounded`,
        budget: `items read ≤ lookback_days + 30 = ${lookback + 30} at every history size, same number of requests`,
        measured: rows
          .map(
            (row) =>
              `${formatNumber(row.reservations, 0)}: ${formatSummary(row.itemsRead, 0)} items, ${formatSummary(row.readUnits, 1)} RRU, ${formatSummary(row.requests, 0)} requests`,
          )
          .join('; '),
        pass: maxPricingItems(lookback) <= lookback + 30 && requests.size === 1,
      };
    }),
    ...LOOKBACKS.map((lookback) => {
      const large = pricing.find(
        (row) => row.lookbackDays === lookback && row.reservations === Math.max(...RESERVATION_STEPS),
      );
      return {
        name: `pricing signals, lookback ${lookback}: latency flat`,
        budget:
          'median latency at 100,000 reservations ≤ 2 × that of the 100-reservation property called alternately',
        measured: `${formatSummary(large?.ms ?? summarize([]), 1)} ms vs ${formatSummary(summarize(large?.baselineLatencies ?? []), 1)} ms (ratio ${formatSummary(large?.latencyRatio ?? summarize([]), 2)})`,
        pass: (large?.latencyRatio.median ?? Number.POSITIVE_INFINITY) <= 2,
      };
    }),
  ];
}

/** GET /properties: a 200 within 6 MB or a clear 4xx, up to and beyond the data set. */
function propertiesBudgets(
  properties: readonly PropertiesRow[],
  beyond: readonly LargeListCase[],
): BudgetCheck[] {
  return [
    {
      name: 'GET /properties up to 50,000 properties',
      budget: "every answer a 200 within Lambda's 6 MB response limit, or a clear 4xx problem; never a 5xx",
      measured: properties
        .map(
          (row) =>
            `${formatNumber(row.properties, 0)} ${row.acceptsGzip ? 'gzip' : 'plain'}: ${row.statuses}${row.problemType ? ` ${row.problemType}` : ''}, ${formatBytes(row.payloadBytes)}; HTTP ${row.http.statuses}`,
        )
        .join('; '),
      pass:
        properties.every(
          (row) =>
            (row.statuses === '200' && row.payloadBytes <= LAMBDA_RESPONSE_LIMIT_BYTES) ||
            (/^4\d\d$/.test(row.statuses) && row.problemType !== undefined),
        ) && properties.every((row) => !/5\d\d/.test(row.http.statuses)),
    },
    {
      name: 'GET /properties beyond',
      budget:
        'a clear error or a design that holds: a 200 within 6 MB or a named problem (not internal-error, not a 502 from an oversized payload)',
      measured: beyond
        .map(
          (row) =>
            `${formatNumber(row.properties, 0)} ${row.acceptsGzip ? 'gzip' : 'plain'}: ${row.statusCode}${row.problemType ? ` ${row.problemType}` : ''}, ${formatBytes(row.payloadBytes)}`,
        )
        .join('; '),
      pass: beyond.every(
        (row) =>
          row.withinLambdaLimit &&
          (row.statusCode === 200 || (row.problemType !== undefined && row.problemType !== 'internal-error')),
      ),
    },
  ];
}
