import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { childEnvironment } from '../lib/child';
import { API_TARGETS } from '../lib/events';
import { cpuSeconds, machineBusySeconds, processTree } from '../lib/proc';
import { progress } from '../lib/progress';
import type { SectionResult, Table } from '../lib/report';
import type { ServiceProcess } from '../lib/service-process';
import type { Summary } from '../lib/stats';
import { formatBytes, formatNumber, formatSummary, pairedRatios, summarize } from '../lib/stats';

const ROUNDS = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 3);
const CONNECTIONS = 10;

/** A bare Node `http` server answering each path with a precomputed body, nothing else. */
const BARE_SERVER = `
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const bodies = new Map(
  Object.entries(JSON.parse(readFileSync(process.env.BENCH_BODIES_FILE, 'utf8'))).map(([path, body]) => [path, Buffer.from(body)]),
);
const server = createServer((request, response) => {
  const body = bodies.get(request.url.split('?')[0]);
  if (!body) { response.writeHead(404); response.end(); return; }
  response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

interface BareServer {
  readonly origin: string;
  readonly pid: number;
  stop(): Promise<void>;
}

async function startBareServer(bodies: Record<string, string>): Promise<BareServer> {
  const directory = await mkdtemp(join(tmpdir(), 'bench-bare-'));
  const bodiesFile = join(directory, 'bodies.json');
  await writeFile(bodiesFile, JSON.stringify(bodies));
  const child = spawn(process.execPath, ['--input-type=module', '-e', BARE_SERVER], {
    env: childEnvironment({ BENCH_BODIES_FILE: bodiesFile }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.setEncoding('utf8');
  const [firstChunk] = (await once(child.stdout, 'data')) as [string];
  const port = Number(firstChunk.trim());
  if (!Number.isInteger(port)) throw new Error(`The bare server did not report a port: ${firstChunk}`);
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

interface LoadRun {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly total: number;
  readonly non2xx: number;
  readonly errors: number;
  /** CPU used during the run, in cores (1 = one core busy), per process. */
  readonly cpu: Record<string, number>;
}

/** Keys rotate per request, so no key comes near 120 requests a minute. */
function keyRotation(keys: readonly string[]): autocannon.Request {
  let next = 0;
  return {
    setupRequest: (request) => {
      next = (next + 1) % keys.length;
      return { ...request, headers: { ...request.headers, Authorization: `Bearer ${keys[next]}` } };
    },
  };
}

async function load(
  url: string,
  keys: readonly string[],
  seconds: number,
  watched: Record<string, number>,
): Promise<LoadRun> {
  const cpuBefore = Object.fromEntries(
    await Promise.all(
      Object.entries(watched).map(async ([name, pid]) => [name, await cpuSeconds(pid)] as const),
    ),
  );
  const ownBefore = process.cpuUsage();
  const machineBefore = await machineBusySeconds();
  const started = performance.now();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [keyRotation(keys)],
  });
  const elapsed = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownBefore);
  const cpu: Record<string, number> = {
    'bench process (autocannon)': (own.user + own.system) / 1e6 / elapsed,
  };
  for (const [name, pid] of Object.entries(watched)) {
    cpu[name] = ((await cpuSeconds(pid)) - (cpuBefore[name] ?? 0)) / elapsed;
  }
  const machine = ((await machineBusySeconds()) - machineBefore) / elapsed;
  const accounted = Object.values(cpu).reduce((sum, value) => sum + value, 0);
  cpu['rest of the machine'] = Math.max(0, machine - accounted);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu,
  };
}

interface TargetResult {
  readonly id: string;
  readonly label: string;
  readonly bodyBytes: number;
  readonly service: LoadRun[];
  readonly baseline: LoadRun[];
}

export async function measureThroughput(
  service: ServiceProcess,
  keys: readonly string[],
): Promise<SectionResult> {
  const base = service.runtime.apiBaseUrl;
  const bodies: Record<string, string> = {};
  for (const target of API_TARGETS) {
    const response = await fetch(base + target.path, { headers: { Authorization: `Bearer ${keys[0]}` } });
    if (response.status !== 200) throw new Error(`${target.label} answered ${response.status}`);
    bodies[new URL(base + target.path).pathname] = await response.text();
  }
  const bare = await startBareServer(bodies);
  const tree = await processTree(service.child.pid ?? 0);
  // The server is the spawned process itself (Node.js 24 names its main thread "MainThread",
  // which is what /proc shows as the command, so it cannot be found by the name "node").
  const serverPid = service.child.pid;
  const javaPid = tree.find((process) => process.command === 'java')?.pid;
  const serviceWatched: Record<string, number> = {
    ...(serverPid ? { 'local server (node)': serverPid } : {}),
    ...(javaPid ? { 'DynamoDB Local (java)': javaPid } : {}),
  };
  try {
    const results: TargetResult[] = API_TARGETS.map((target) => ({
      id: target.id,
      label: target.label,
      bodyBytes: Buffer.byteLength(bodies[new URL(base + target.path).pathname] ?? ''),
      service: [],
      baseline: [],
    }));
    for (const target of API_TARGETS) {
      // Warm-up: handler modules loaded, key and rate-window caches filled, JIT warm.
      await load(base + target.path, keys, 1, {});
      await load(bare.origin + new URL(base + target.path).pathname, keys, 1, {});
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [index, target] of API_TARGETS.entries()) {
        progress(
          `throughput: round ${round}/${ROUNDS}, ${target.label} (${SECONDS} s each, server and baseline)`,
        );
        const result = results[index];
        const path = new URL(base + target.path).pathname;
        result?.baseline.push(
          await load(bare.origin + path, keys, SECONDS, { 'bare server (node)': bare.pid }),
        );
        result?.service.push(await load(base + target.path, keys, SECONDS, serviceWatched));
      }
    }
    return report(results, keys.length);
  } finally {
    await bare.stop();
  }
}

function report(results: readonly TargetResult[], keyCount: number): SectionResult {
  const rows = results.map((result) => {
    const rps = result.service.map((run) => run.requestsPerSecond);
    const baselineRps = result.baseline.map((run) => run.requestsPerSecond);
    return {
      id: result.id,
      label: result.label,
      bodyBytes: result.bodyBytes,
      requestsPerSecond: summarize(rps),
      p50Ms: summarize(result.service.map((run) => run.p50Ms)),
      p99Ms: summarize(result.service.map((run) => run.p99Ms)),
      meanMs: summarize(result.service.map((run) => run.meanMs)),
      non2xx: result.service.reduce((sum, run) => sum + run.non2xx, 0),
      errors: result.service.reduce((sum, run) => sum + run.errors, 0),
      total: result.service.reduce((sum, run) => sum + run.total, 0),
      baselineRequestsPerSecond: summarize(baselineRps),
      baselineP50Ms: summarize(result.baseline.map((run) => run.p50Ms)),
      baselineP99Ms: summarize(result.baseline.map((run) => run.p99Ms)),
      baselineMeanMs: summarize(result.baseline.map((run) => run.meanMs)),
      baselineNon2xx: result.baseline.reduce((sum, run) => sum + run.non2xx, 0),
      throughputRatio: pairedRatios(rps, baselineRps),
      cpu: cpuSummary(result.service),
      baselineCpu: cpuSummary(result.baseline),
    };
  });
  const f0 = (summary: Summary) => formatSummary(summary, 0);
  const table: Table = {
    caption: `autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds; in each round the bare server runs right before the local server`,
    columns: [
      'Endpoint',
      'body',
      'req/s',
      'p50 ms',
      'p99 ms',
      'non-2xx / errors',
      'bare server req/s',
      'bare p50 / p99 ms',
      'req/s ratio (server ÷ bare)',
    ],
    rows: rows.map((row) => [
      row.label,
      formatBytes(row.bodyBytes),
      f0(row.requestsPerSecond),
      f0(row.p50Ms),
      f0(row.p99Ms),
      `${row.non2xx} / ${row.errors} of ${formatNumber(row.total, 0)}`,
      f0(row.baselineRequestsPerSecond),
      `${f0(row.baselineP50Ms)} / ${f0(row.baselineP99Ms)}`,
      formatSummary(row.throughputRatio, 3),
    ]),
  };
  const processes = [...new Set(rows.flatMap((row) => Object.keys(row.cpu)))];
  const perRequest = (row: (typeof rows)[number], name: string) =>
    formatNumber(((row.cpu[name]?.median ?? Number.NaN) / row.requestsPerSecond.median) * 1000, 1);
  const cpuTable: Table = {
    caption:
      'CPU during the local-server runs, in cores (2 available), and per request in ms: where the time goes',
    columns: ['Endpoint', ...processes, 'local server CPU per request', 'DynamoDB Local CPU per request'],
    rows: rows.map((row) => [
      row.label,
      ...processes.map((name) => formatSummary(row.cpu[name] ?? summarize([]), 2)),
      `${perRequest(row, 'local server (node)')} ms`,
      `${perRequest(row, 'DynamoDB Local (java)')} ms`,
    ]),
  };
  return {
    id: 'throughput',
    title: '1. Local server throughput and latency',
    method: [
      `\`npm start\` runs as its own process (real handlers behind the API Gateway emulation, DynamoDB Local in a JVM); autocannon runs in the bench process with ${CONNECTIONS} connections and rotates ${formatNumber(keyCount, 0)} keys of the demo partner (metrics:read + revenue:read) per request, so no key nears 120 requests a minute.`,
      'Pricing signals are for demo property 2 with the default lookback (90 days).',
      'Baseline: a bare Node `http` server in its own process returning the same precomputed JSON body for the same path (fetched once from the local server), loaded the same way right before each server run; ratios are per round.',
      "Everything shares 2 cores, so these numbers say what the emulation plus DynamoDB Local sustain here, not what API Gateway and Lambda would. autocannon records latency in whole milliseconds and the bare server answers in under one, so latency is shown beside the baseline's rather than as a ratio; the throughput ratio carries the comparison. “Rest of the machine” in the CPU table is everything else that ran meanwhile (from /proc/stat): it is what makes absolute figures drift.",
    ].join(' '),
    tables: [table, cpuTable],
    budgets: rows.map((row) => ({
      name: `${row.label}: no non-2xx under load`,
      budget: '0 non-2xx, 0 errors (the rate limit must not interfere)',
      measured: `${row.non2xx} non-2xx, ${row.errors} errors of ${formatNumber(row.total, 0)} requests`,
      pass: row.non2xx === 0 && row.errors === 0,
    })),
    notes: [],
    data: {
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      keys: keyCount,
      endpoints: rows,
      raw: results,
    },
  };
}

function cpuSummary(runs: readonly LoadRun[]): Record<string, Summary> {
  const names = [...new Set(runs.flatMap((run) => Object.keys(run.cpu)))];
  return Object.fromEntries(names.map((name) => [name, summarize(runs.map((run) => run.cpu[name] ?? 0))]));
}
