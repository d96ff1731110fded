import { fileURLToPath } from 'node:url';
import { runWorker } from '../lib/child';
import type { BudgetCheck, SectionResult } from '../lib/report';
import type { Summary } from '../lib/stats';
import { formatNumber, formatSummary, pairedRatios, summarize } from '../lib/stats';

export interface WarmRun {
  readonly invocations: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly failures: number;
  readonly compilations: number;
}

export interface WarmTarget {
  readonly id: string;
  readonly label: string;
  readonly firstInvocationMs: number;
  readonly compilationsFirstInvocation: number;
  readonly runs: readonly WarmRun[];
}

export interface WarmHandlersOutput {
  readonly warmUp: number;
  readonly invocationsPerRun: number;
  readonly compilationsAtImport: number;
  readonly aggregateItems: number;
  readonly reservations: number;
  readonly targets: readonly WarmTarget[];
}

const BUDGET_P50_MS = 1;
const WORKER = fileURLToPath(new URL('../workers/warm-handlers.ts', import.meta.url));

export async function measureWarmHandlers(): Promise<SectionResult> {
  const output = await runWorker<WarmHandlersOutput>(WORKER, {
    STAGE: 'local',
    TABLE_NAME: 'bench',
    AWS_REGION: 'eu-west-1',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    // Never a real endpoint: every call is answered by the mock.
    DYNAMODB_ENDPOINT: '',
  });
  const baseline = output.targets.find((target) => target.id === 'baseline');
  const baselineP50 = baseline?.runs.map((run) => run.p50Ms) ?? [];
  const rows = output.targets.map((target) => {
    const p50 = target.runs.map((run) => run.p50Ms);
    return {
      id: target.id,
      label: target.label,
      p50: summarize(p50),
      p99: summarize(target.runs.map((run) => run.p99Ms)),
      mean: summarize(target.runs.map((run) => run.meanMs)),
      ratioToBaseline: pairedRatios(p50, baselineP50),
      failures: target.runs.reduce((sum, run) => sum + run.failures, 0),
      firstInvocationMs: target.firstInvocationMs,
      compilationsFirstInvocation: target.compilationsFirstInvocation,
      compilationsTimed: target.runs.reduce((sum, run) => sum + run.compilations, 0),
    };
  });
  const budgets: BudgetCheck[] = rows
    .filter((row) => row.id !== 'baseline')
    .map((row) => ({
      name: `${row.label}: warm p50`,
      budget: `< ${BUDGET_P50_MS} ms`,
      measured: `${formatSummary(row.p50, 3)} ms (p99 ${formatSummary(row.p99, 3)} ms), ${row.failures} non-success`,
      pass: row.p50.median < BUDGET_P50_MS && row.failures === 0,
    }));
  const ms = (summary: Summary) => formatSummary(summary, 3);
  return {
    id: 'warm-handlers',
    title: '3. Warm handler cost, in-process, DynamoDB mocked',
    method: [
      `Each handler is imported once in its own process (STAGE=local, tableName()=bench, POWERTOOLS_LOG_LEVEL=SILENT) with \`DynamoDBDocumentClient\` mocked by aws-sdk-client-mock, and invoked ${output.warmUp} times to warm up, then ${output.invocationsPerRun} times timed one by one (performance.now() around each awaited call), in ${output.targets[0]?.runs.length ?? 0} runs.`,
      `The mock answers like the table: the key record, the property, three sponsorships, five properties, and for pricing signals the monthly aggregates (${output.aggregateItems} items) and edge-day bookings built from ${output.reservations} reservations (ten years, one booking a day) with the real \`aggregateDeltas\`.`,
      'API handlers get a proxy event with the authorizer context; the key prefix changes every 100 invocations, so every request is admitted by the rate limiter (its conditional write is mocked) with a realistic window of up to 100 entries. The authorizer gets a valid key: "hit" is served by its key cache, "miss" forgets the cache before each call (untimed), so every call does its GetItem.',
      'The mock replaces `send` itself, so SDK serialization and HTTP are not in these figures (section 1 has them). The baseline is one mocked DocumentClient `GetCommand`: the ratio is how many such calls one invocation costs.',
    ].join(' '),
    tables: [
      {
        caption: 'Per invocation, ms (median of the runs, with min–max)',
        columns: [
          'Handler',
          'p50',
          'p99',
          'mean',
          '× baseline (p50)',
          'non-success',
          'first invocation',
          'Function() in first / timed calls',
        ],
        rows: rows.map((row) => [
          row.label,
          ms(row.p50),
          ms(row.p99),
          ms(row.mean),
          formatSummary(row.ratioToBaseline, 1),
          String(row.failures),
          `${formatNumber(row.firstInvocationMs, 2)} ms`,
          `${row.compilationsFirstInvocation} / ${row.compilationsTimed}`,
        ]),
      },
    ],
    budgets,
    notes: [
      `Runtime code generation (Function()/eval) counted in the worker: ${output.compilationsAtImport} while importing the handlers (including zod/mini, the SDK and the mock), and per handler in its first and timed invocations (last column): zod/mini parses without compiling, so no schema is compiled at load or at first parse.`,
    ],
    data: { budgetP50Ms: BUDGET_P50_MS, ...output, summary: rows },
  };
}
