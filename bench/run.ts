/**
 * `npm run bench`: the benchmark suite. Writes bench/results.md (tables, with the machine they
 * were measured on), bench/results.json (the summary figures and each budget's PASS/FAIL, one
 * line per row, to diff between runs: bench/lib/summary.ts) and, not committed,
 * .local/bench/results.full.json (every raw figure), printing progress on stderr.
 * Every figure is a median over repeated runs with min and max; timings that matter are also a
 * ratio against a baseline measured in the same run, because absolute times drift on a shared
 * machine. Each section checks its budgets and says PASS or FAIL.
 *
 * 1. Local server throughput and latency (sections/throughput.ts): autocannon against
 *    GET /usage, GET /properties and GET /properties/2/pricing-signals on `npm start` running as
 *    its own process, rotating 2,000 keys of the demo partner so the 120/min limit never
 *    interferes, 5 rounds of 3 s; baseline: a bare Node `http` server (own process) returning
 *    the same JSON, run right before each server run; CPU per process from /proc.
 * 2. Lambda bundles (sections/bundles.ts): size of each bundle CDK built into cdk.out (mapped
 *    from the sandbox template through Code.S3Key and the asset manifest) and its module-load
 *    time in a fresh `node` process, loaded as the Lambda runtime loads an ESM handler (dynamic
 *    import() with the function's environment), with and without --enable-source-maps;
 *    baselines: hello-world and bare-DocumentClient handlers bundled with the stack's esbuild
 *    options (bench/baselines/), with a 95% bootstrap interval of each median delta, and V8 CPU
 *    profiles of the imports mapped through the source maps to packages. Budget: ≤ 10 ms over
 *    the bare DocumentClient (main-thread CPU time of the import, each function paired with a run
 *    of the baseline next to it, more pairs while the interval holds the budget; INIT is billed);
 *    no schema compiled at load (the global Function constructor and
 *    eval are counted during the import, with a classic-zod positive control).
 * 3. Warm handler cost (sections/warm-handlers.ts, workers/warm-handlers.ts): p50/p99 per
 *    invocation of each API handler and of the authorizer (key cache hit and miss), in its own
 *    process with the DocumentClient mocked by aws-sdk-client-mock; baseline: one mocked
 *    GetCommand. Budget: p50 < 1 ms.
 * 4. DynamoDB cost per call (sections/dynamo-cost.ts): requests, items and consumed capacity of
 *    each endpoint and of the authorizer against DynamoDB Local (handlers invoked in-process,
 *    meter on the shared document client), priced with on-demand prices. Budget: one authorizer
 *    read per call or none from its cache; point reads of 1 KB-class items.
 * 5. Scaling (sections/scaling.ts, workers/large-lists.ts): pricing signals as one property
 *    grows to 100, 10,000 and 100,000 reservations through the real import (reads bounded by
 *    lookback + 30 items; latency flat against a 100-reservation property called alternately);
 *    GET /properties as one partner grows to 100, 10,000 and 50,000 properties, with and without
 *    gzip, in-process and over HTTP, and up to 1.5 million with DynamoDB mocked.
 * 6. Activation (sections/activation.ts): latency of the provisioning POST on the local
 *    server, 10 hosts at once against one at a time (the baseline), 3 rounds.
 * 7. Rate limiter (sections/limiter.ts, workers/limiter-instance.ts): the limiter alone in 1, 5,
 *    20 and 50 independent instances (processes) on one DynamoDB Local, bursts under and over the
 *    limit on fresh keys at the same offered load: admitted, refused, errors, p50/p99, write
 *    units with failed conditional writes. Budgets: 0 errors, exactly min(n, limit) admitted,
 *    p99 at 20 instances ≤ 3 × the 1-instance p99, ≤ 1 write unit per admitting write; back to
 *    back at 50 instances ≤ 1.2 write units per admission, failed writes included, and p99
 *    (refusals included) ≤ 1.5 × the key-per-instance baseline's at 50, the two in the same rounds
 *    (median of the rounds' ratios, more rounds while in doubt). BENCH_LIMITER_INSTANCES=5,50 and
 *    BENCH_LIMITER_MODES=back-to-back,uncontended measure only those sizes and arrival shapes.
 * 8. Pages (sections/pagination.ts): one page of GET /properties?limit=1000 for a partner with
 *    1,000 properties and one with 1,000,000 (first, middle, last page), in-process against
 *    DynamoDB Local, called alternately. Budget: p50 at 1,000,000 ≤ 2 × the p50 at 1,000.
 * 9. The platform's events (sections/events.ts): one consumer instance's rate per workload
 *    (the real handler in-process, batches of 10; baseline: bare 3-action transactions); DynamoDB
 *    units per event kind, and a ReservationChanged at 100 and 100,000 reservations of history
 *    (budget: equal); publish-to-visible lag through the local server (budget: p99 ≤ 5 s), and
 *    the same for other properties' events among 1,000 of one hot property (budget: p99 ≤ 5 s).
 * 10. What a call costs (sections/cost.ts): each partner API route called through the real
 *    authorizer and handler in-process (DynamoDB metered, log lines captured at each stage's
 *    level), priced with the list prices of bench/lib/prices.ts and the settings the synthesized
 *    templates give each stage (log levels, sampling rule, firewall, log classes and retention):
 *    dollars per million calls by component, fixed monthly cost by resource, with section 2's
 *    INIT and section 7's contended write units when they ran. Budget: ≤ $7.00 per million calls
 *    in production.
 *
 * 11. The events this service sends (sections/outbound.ts): commit-to-delivered lag of provisionings
 *    through the local server's own outbound pipe to the platform's inbox (budget: p99 ≤ 5 s, none
 *    lost); write units the outbox adds to a provisioning (≤ 2) and to a wizard submission (≤ 4),
 *    measured with and without its item in the same transaction; stream records per API call.
 *
 * Charts (bench/lib/charts.ts) are drawn from sections 2, 7 and 10 into bench/charts/*.svg when
 * those sections run, and linked from their sections of results.md.
 *
 * Shared pieces are in bench/lib/: the server process and key minting (service-process.ts),
 * the DynamoDB meter, in-process handler calls, data sets, statistics and the report.
 *
 * Order of work: synthesis when cdk.out is stale (~20 s), sections 2 and 3 (no server), then
 * the local server and sections 1, 4, 5 and 6 against it. Environment knobs for quicker
 * experiments: BENCH_ONLY=throughput,bundles,… runs only those sections (the results files then
 * hold only those); BENCH_THROUGHPUT_ROUNDS, BENCH_THROUGHPUT_SECONDS, BENCH_WARM_INVOCATIONS.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCOPES } from '../core/domain/scopes';
import { ensureSynthesized } from './lib/cdk-assets';
import { CHARTS } from './lib/charts';
import { describeMachine } from './lib/machine';
import { progress, timed } from './lib/progress';
import type { BenchResults, SectionResult } from './lib/report';
import { renderMarkdown } from './lib/report';
import type { ServiceProcess } from './lib/service-process';
import { mintKeys, startServiceProcess, useServiceTable } from './lib/service-process';
import { renderSummary, summarize } from './lib/summary';
import { measureActivation } from './sections/activation';
import { measureBundles } from './sections/bundles';
import { measureCost } from './sections/cost';
import { measureDynamoCost } from './sections/dynamo-cost';
import { measureEvents } from './sections/events';
import { measureLimiter } from './sections/limiter';
import { measureOutbound } from './sections/outbound';
import { measurePagination } from './sections/pagination';
import { measureScaling } from './sections/scaling';
import { measureThroughput } from './sections/throughput';
import { measureWarmHandlers } from './sections/warm-handlers';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const SECTIONS = [
  { id: 'throughput', title: '1. Local server throughput and latency' },
  { id: 'bundles', title: '2. Lambda bundles: size and module-load time' },
  { id: 'warm-handlers', title: '3. Warm handler cost, in-process, DynamoDB mocked' },
  { id: 'dynamo-cost', title: '4. DynamoDB cost per call' },
  { id: 'scaling', title: '5. Scaling' },
  { id: 'activation', title: '6. Activation: provisioning transaction latency' },
  { id: 'limiter', title: '7. The exact rate limiter under contention' },
  { id: 'pagination', title: '8. Pages of GET /properties' },
  { id: 'events', title: "9. The platform's events" },
  { id: 'cost', title: '10. What a call costs' },
  { id: 'outbound', title: '11. The events this service sends' },
] as const;
type SectionId = (typeof SECTIONS)[number]['id'];

const THROUGHPUT_KEYS = 2_000;
const only = new Set((process.env.BENCH_ONLY ?? SECTIONS.map((section) => section.id).join(',')).split(','));
const started = performance.now();
const machine = await describeMachine();
const results = new Map<SectionId, SectionResult>();
const preparation: Record<string, number> = {};

async function runSection(id: SectionId, work: () => Promise<SectionResult>): Promise<void> {
  const title = SECTIONS.find((section) => section.id === id)?.title ?? id;
  if (!only.has(id)) return;
  try {
    const { value, seconds } = await timed(title, work);
    results.set(id, { ...value, seconds });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    progress(`${title} FAILED: ${message}`);
    results.set(id, {
      id,
      title,
      method: '',
      tables: [],
      budgets: [],
      notes: [],
      data: null,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

if (only.has('bundles') || only.has('cost')) {
  try {
    const synthesis = await ensureSynthesized();
    preparation.cdkSynthSeconds = synthesis.seconds;
    progress(`cdk.out: ${synthesis.synthesized ? `synthesized (${synthesis.reason})` : synthesis.reason}`);
  } catch (error) {
    progress(`cdk synth failed: ${(error as Error).message}; measuring whatever cdk.out holds`);
  }
}
await runSection('bundles', measureBundles);
await runSection('warm-handlers', measureWarmHandlers);

const needsService = [
  'throughput',
  'dynamo-cost',
  'scaling',
  'activation',
  'limiter',
  'pagination',
  'events',
  'cost',
  'outbound',
].some((id) => only.has(id));
if (needsService) {
  const { value: service, seconds } = await timed('starting the local server (npm start, own process)', () =>
    startServiceProcess(),
  );
  preparation.serviceStartSeconds = seconds;
  try {
    useServiceTable(service.runtime);
    await runServiceSections(service);
  } finally {
    await service.stop();
  }
}

async function runServiceSections(service: ServiceProcess): Promise<void> {
  if (only.has('throughput')) {
    const { value: keys, seconds } = await timed(`minting ${THROUGHPUT_KEYS} keys for the demo partner`, () =>
      mintKeys(1, THROUGHPUT_KEYS, [...SCOPES]),
    );
    preparation.mintKeysSeconds = seconds;
    await runSection('throughput', () => measureThroughput(service, keys));
  }
  await runSection('dynamo-cost', measureDynamoCost);
  await runSection('scaling', () => measureScaling(service));
  await runSection('activation', () => measureActivation(service));
  await runSection('limiter', () => measureLimiter(service.runtime));
  await runSection('pagination', () => measurePagination());
  await runSection('events', measureEvents);
  await runSection('cost', () =>
    measureCost({ bundles: results.get('bundles'), limiter: results.get('limiter') }),
  );
  await runSection('outbound', () => measureOutbound(service.runtime));
}

/** Draws each section's chart into bench/charts/ and names it in the section (bench/lib/charts.ts). */
async function drawCharts(): Promise<void> {
  const directory = fileURLToPath(new URL('charts/', import.meta.url));
  await mkdir(directory, { recursive: true });
  for (const [id, section] of results) {
    const draw = CHARTS[id];
    if (!draw || section.error) continue;
    try {
      const chart = draw(section);
      if (!chart) continue;
      await writeFile(`${directory}${chart.file}`, chart.svg);
      results.set(id, { ...section, charts: [{ title: chart.title, file: chart.file }] });
    } catch (error) {
      progress(`chart of ${section.title} not drawn: ${(error as Error).message}`);
    }
  }
}
await drawCharts();

const report: BenchResults = {
  machine,
  totalSeconds: (performance.now() - started) / 1000,
  loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100),
  preparation,
  sections: SECTIONS.flatMap((section) => results.get(section.id) ?? []),
};
const markdownFile = fileURLToPath(new URL('results.md', import.meta.url));
const jsonFile = fileURLToPath(new URL('results.json', import.meta.url));
const fullFile = fileURLToPath(new URL('../.local/bench/results.full.json', import.meta.url));
await writeFile(markdownFile, renderMarkdown(report));
// The raw runs stay out of version control; the committed JSON is the summary a reader diffs.
await mkdir(dirname(fullFile), { recursive: true });
await writeFile(fullFile, `${JSON.stringify(report, null, 2)}\n`);
try {
  await writeFile(jsonFile, renderSummary(summarize(report)));
} catch (error) {
  progress(`bench/results.json not written: ${(error as Error).message}`);
  process.exitCode = 1;
}
const budgets = report.sections.flatMap((section) => section.budgets);
const failed =
  budgets.filter((budget) => !budget.pass).length + report.sections.filter((s) => s.error).length;
if (report.sections.some((section) => section.error)) process.exitCode = 1;
progress(
  `done in ${report.totalSeconds.toFixed(0)} s: ${budgets.length - budgets.filter((b) => !b.pass).length}/${budgets.length} budgets pass${failed > 0 ? `, ${failed} fail` : ''}; wrote bench/results.md, bench/results.json and .local/bench/results.full.json`,
);
