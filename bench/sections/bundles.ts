import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import type { BuildOptions, Metafile } from 'esbuild';
import { build } from 'esbuild';
import { serviceFunctions } from '../../core/routes';
import type { FunctionBundle } from '../lib/cdk-assets';
import { functionBundles, REPOSITORY_ROOT } from '../lib/cdk-assets';
import { runProcess } from '../lib/child';
import { progress } from '../lib/progress';
import type { BudgetCheck, SectionResult, Table } from '../lib/report';
import type { Summary } from '../lib/stats';
import {
  formatBytes,
  formatNumber,
  formatSummary,
  median,
  medianConfidenceInterval,
  pairedDeltas,
  pairedRatios,
  summarize,
} from '../lib/stats';

const ROUNDS = 25;
/** Pairs added at a time to a function whose verdict is in doubt, and the most it gets (settleVerdicts). */
const EXTRA_PAIRS = 10;
const MAX_PAIRS = 75;
/**
 * What a bundle may add to a bare DocumentClient handler's module load. Lambda bills the INIT
 * phase of on-demand functions since 1 August 2025 (managed runtimes, ZIP packages:
 * https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/), so this is
 * cost as well as latency (docs/design/README.md#cold-start-is-billed).
 */
const BUDGET_MS = 10;

/**
 * Loads one handler file the way the Lambda Node.js runtime loads an ESM handler: a dynamic
 * `import()` of its file URL, timed from just before to just after the promise settles. Besides
 * the wall time it reads, from the Linux scheduler (`/proc/thread-self/schedstat`), how long the
 * main thread was on a CPU during the import and how long it waited in the run queue for one: a
 * busy machine adds to the wait, not to the time on a CPU. The scheduler's figures are exact for
 * a thread that has just slept (a running thread's are a tick behind), so each reading follows a
 * 1 ms `Atomics.wait`, outside the timed import. Without /proc it falls back to
 * `process.threadCpuUsage()` (tick-grained) and no wait. `initMs` is the model of the INIT phase:
 * from the process's start (Node's own start) to the handler loaded, the probe's set-up left out. With
 * `--count-compilations` it also counts calls of the global `Function` constructor (how zod,
 * like every JIT-compiling library, compiles a schema's parser) during the import; timed runs
 * leave it out so that nothing but the import is measured.
 */
const PROBE = `
import { readFileSync } from 'node:fs';
const bootMs = performance.now();
const fence = new Int32Array(new SharedArrayBuffer(4));
function scheduler(settle = true) {
  if (settle) Atomics.wait(fence, 0, 0, 1);
  try {
    const [onCpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return { onCpuMs: onCpu / 1e6, waitingMs: waiting / 1e6 };
  } catch {
    const usage = process.threadCpuUsage();
    return { onCpuMs: (usage.user + usage.system) / 1000, waitingMs: Number.NaN };
  }
}
const bootWaitingMs = scheduler(false).waitingMs;
const counting = process.argv.includes('--count-compilations');
let compilations = 0;
if (counting) {
  const RealFunction = globalThis.Function;
  globalThis.Function = new Proxy(RealFunction, {
    construct(target, args, newTarget) { compilations++; return Reflect.construct(target, args, newTarget); },
    apply(target, self, args) { compilations++; return Reflect.apply(target, self, args); },
  });
  const realEval = globalThis.eval;
  globalThis.eval = (code) => { compilations++; return realEval(code); };
}
const { pathToFileURL } = await import('node:url');
const profileIndex = process.argv.indexOf('--profile-to');
let session;
if (profileIndex > 0) {
  const { Session } = await import('node:inspector/promises');
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const scheduledBefore = scheduler();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const module = await import(pathToFileURL(process.argv[2]).href);
const loadMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
const scheduledAfter = scheduler();
const threadCpuMs = scheduledAfter.onCpuMs - scheduledBefore.onCpuMs;
const runQueueMs = scheduledAfter.waitingMs - scheduledBefore.waitingMs;
const initMs = bootMs + loadMs;
const initRunQueueMs = bootWaitingMs + runQueueMs;
if (session) {
  const { profile } = await session.post('Profiler.stop');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(process.argv[profileIndex + 1], JSON.stringify(profile));
}
process.stdout.write(JSON.stringify({ loadMs, cpuMs, threadCpuMs, runQueueMs, initMs, initRunQueueMs, compilations, handler: typeof module.handler }) + '\\n');
`;

interface ProbeResult {
  readonly loadMs: number;
  /** CPU time of the whole process (all threads) during the import. */
  readonly cpuMs: number;
  /** Time the main thread spent on a CPU during the import (exact, from the scheduler). */
  readonly threadCpuMs: number;
  /** Time the main thread was ready to run but waited for a CPU during the import. */
  readonly runQueueMs: number;
  /** From the process's start to the handler loaded (Node's start and the import), wall time. */
  readonly initMs: number;
  /** Of `initMs`, the main thread's time waiting for a CPU (Node's start and the import). */
  readonly initRunQueueMs: number;
  readonly compilations: number;
  readonly handler: string;
}

interface Candidate {
  readonly name: string;
  readonly kind: 'function' | 'baseline' | 'control';
  readonly handlerFile: string;
  readonly directory: string;
  readonly environment: Record<string, string>;
  /** Output bytes by origin (from an esbuild metafile of the same entry, same options). */
  composition?: Record<string, number>;
}

/** What the Lambda runtime sets for every function, besides the function's own variables. */
function lambdaEnvironment(candidate: Candidate): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    AWS_REGION: 'eu-west-1',
    AWS_DEFAULT_REGION: 'eu-west-1',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: candidate.name.replace(/\W+/g, '-').slice(0, 64),
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_FORMAT: 'JSON',
    AWS_ACCESS_KEY_ID: 'ASIABENCHBENCHBENCH0',
    AWS_SECRET_ACCESS_KEY: 'bench-secret-access-key',
    AWS_SESSION_TOKEN: 'bench-session-token',
    LAMBDA_TASK_ROOT: candidate.directory,
    _HANDLER: 'index.handler',
    ...candidate.environment,
  };
}

async function probe(
  probeFile: string,
  candidate: Candidate,
  sourceMaps: boolean,
  countCompilations = false,
  probeFlags: readonly string[] = [],
): Promise<ProbeResult> {
  const environment = lambdaEnvironment(candidate);
  if (sourceMaps) environment.NODE_OPTIONS = '--enable-source-maps';
  else delete environment.NODE_OPTIONS;
  const args = [
    probeFile,
    candidate.handlerFile,
    ...(countCompilations ? ['--count-compilations'] : []),
    ...probeFlags,
  ];
  const { stdout, code } = await runProcess(process.execPath, args, {
    env: environment,
    cwd: candidate.directory,
  });
  if (code !== 0) throw new Error(`Loading ${candidate.name} exited with code ${code}`);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ProbeResult;
}

/** esbuild options equal to the stack's (`BUNDLING_DEFAULTS`, as aws-lambda-nodejs passes them). */
async function stackEsbuildOptions(): Promise<BuildOptions> {
  const { BUNDLING_DEFAULTS } = await import('../../lib/constructs/secure-defaults');
  const options = BUNDLING_DEFAULTS;
  return {
    bundle: true,
    platform: 'node',
    format: options.format === 'esm' ? 'esm' : 'cjs',
    target: options.target,
    minify: options.minify ?? false,
    sourcemap: options.sourceMap ?? false,
    sourcesContent: options.sourcesContent ?? true,
    external: [...(options.externalModules ?? [])],
    mainFields: [...(options.mainFields ?? [])],
    ...(options.banner ? { banner: { js: options.banner } } : {}),
    logLevel: 'warning',
    absWorkingDir: REPOSITORY_ROOT,
  };
}

function originOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (!match) return /(^|\/)lambdas\//.test(input) ? 'app code (lambdas/)' : 'other';
  const name = match[1] ?? '';
  if (name.startsWith('@aws-sdk/') || name.startsWith('@smithy/') || name.startsWith('@aws-crypto/'))
    return 'AWS SDK (@aws-sdk, @smithy, @aws-crypto)';
  if (name.startsWith('@aws-lambda-powertools/')) return 'Powertools logger';
  if (name.startsWith('@middy/')) return 'middy';
  if (name === 'zod') return 'zod';
  if (name.startsWith('preact')) return 'preact';
  return 'other packages';
}

function composition(metafile: Metafile): Record<string, number> {
  const bytes: Record<string, number> = {};
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const origin = originOf(input);
      bytes[origin] = (bytes[origin] ?? 0) + bytesInOutput;
    }
  }
  return bytes;
}

async function bundleEntry(
  options: BuildOptions,
  entry: string,
  outDirectory: string,
): Promise<{ file: string; metafile: Metafile }> {
  const file = join(outDirectory, 'index.mjs');
  const result = await build({ ...options, entryPoints: [entry], outfile: file, metafile: true });
  return { file, metafile: result.metafile };
}

/** Entry file of a bundle: the route table's `entry` of the function its `service-function` tag names. */
function entryOf(bundle: FunctionBundle): string | undefined {
  const entry = serviceFunctions.find((spec) => spec.name === bundle.name)?.entry;
  return entry === undefined ? undefined : `lambdas/${entry}`;
}

async function fileSizes(file: string): Promise<{ code: number; map: number; zipped: number }> {
  const code = await readFile(file);
  let map: Buffer = Buffer.alloc(0);
  try {
    map = await readFile(`${file}.map`);
  } catch {
    // No source map next to this bundle.
  }
  // The deployment package is a zip of the folder; deflate is what zip stores.
  const zipped = deflateRawSync(code).length + (map.length > 0 ? deflateRawSync(map).length : 0);
  return { code: code.length, map: map.length, zipped };
}

const PROFILE_RUNS = 4;
const TOP_LEVEL = 'module top level (all ESM modules, not attributable)';

interface CallFrame {
  readonly url: string;
  readonly functionName: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

interface CpuProfile {
  readonly nodes: readonly {
    id: number;
    callFrame: CallFrame;
    children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/**
 * Where the import's time goes: a V8 CPU profile of the `import()` alone (the probe starts the
 * profiler through node:inspector right before it and stops it right after; 100 µs sampling,
 * source maps on) for a few loads. Samples in the bundle are mapped through its source map to
 * the package they come from; the others are Node's module loading (reading, compiling, source
 * maps), garbage collection, or V8's own parsing and compiling. esbuild hoists ES modules into one
 * top level, so statements that run at load outside any function land in one bucket.
 */
async function profileImport(
  probeFile: string,
  candidate: Candidate,
  work: string,
): Promise<Record<string, number>> {
  const directory = await mkdtemp(join(work, 'profile-'));
  for (let run = 0; run < PROFILE_RUNS; run++) {
    await probe(probeFile, candidate, true, false, ['--profile-to', join(directory, `${run}.cpuprofile`)]);
  }
  const sourceMap = new SourceMap(JSON.parse(await readFile(`${candidate.handlerFile}.map`, 'utf8')));
  const bundleUrl = pathToFileURL(candidate.handlerFile).href;
  const totals: Record<string, number> = {};
  for (const file of await readdir(directory)) {
    const profile = JSON.parse(await readFile(join(directory, file), 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const parents = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
    const origins = new Map<number, string>();
    for (const [index, id] of profile.samples.entries()) {
      let origin = origins.get(id);
      if (origin === undefined) {
        const stack: CallFrame[] = [];
        for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
          const frame = nodes.get(at)?.callFrame;
          if (frame) stack.push(frame);
        }
        origin = sampleOrigin(stack, bundleUrl, sourceMap);
        origins.set(id, origin);
      }
      if (origin === PROFILER) continue;
      totals[origin] = (totals[origin] ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000 / PROFILE_RUNS;
    }
  }
  return totals;
}

const NODE_LOADING = 'Node: module loader';
const SOURCE_MAPS = 'Node: reading source maps (--enable-source-maps)';
const COMPILE = 'V8: compiling the module';
const BUILTINS = 'Node built-ins (node:crypto, …)';
const PROFILER = 'profiler (left out)';

/** What a sample was doing: the bundle's package for its own code, else the Node/V8 work around it. */
function sampleOrigin(stack: readonly CallFrame[], bundleUrl: string, sourceMap: SourceMap): string {
  const [leaf] = stack;
  if (!leaf) return NODE_LOADING;
  if (leaf.url === bundleUrl) {
    const entry = sourceMap.findEntry(leaf.lineNumber, leaf.columnNumber);
    return 'originalSource' in entry && entry.originalSource ? originOf(entry.originalSource) : TOP_LEVEL;
  }
  if (leaf.functionName === '(garbage collector)') return 'GC';
  if (leaf.functionName === '(idle)') return 'idle (waiting for I/O)';
  if (leaf.functionName === '(program)') return 'V8 (other)';
  if (stack.some((frame) => frame.url.includes('inspector'))) return PROFILER;
  if (stack.some((frame) => frame.url.includes('source_map'))) return SOURCE_MAPS;
  if (stack.some((frame) => frame.functionName === 'compileSourceTextModule')) return COMPILE;
  if (stack.some((frame) => frame.functionName === 'compileForInternalLoader')) return BUILTINS;
  return NODE_LOADING;
}

/** The runs of one candidate. */
interface Loads {
  /** Source maps on, as deployed: one a round (the bare baseline: one next to each function's). */
  readonly maps: ProbeResult[];
  /** For a function: the bare baseline's run right before or after each of its `maps` runs. */
  readonly adjacentBare: ProbeResult[];
  /** Source maps off: one a round. */
  readonly plain: ProbeResult[];
}

interface BundleRow {
  readonly name: string;
  readonly kind: Candidate['kind'];
  readonly logicalId?: string;
  readonly sizes: { code: number; map: number; zipped: number };
  readonly loadMsWithSourceMaps: Summary;
  readonly loadMsWithoutSourceMaps: Summary;
  readonly cpuMsWithSourceMaps: Summary;
  readonly ratioToHelloWorld: Summary;
  readonly ratioToBareDocumentClient: Summary;
  /** Wall time of the import added to the bare baseline's run next to it (source maps on). */
  readonly deltaToBareDocumentClientMs: Summary;
  /** 95% bootstrap confidence interval of the median paired wall-time delta (source maps on). */
  readonly deltaConfidenceInterval: [number, number];
  readonly deltaToBareDocumentClientMsWithoutSourceMaps: Summary;
  readonly cpuDeltaToBareDocumentClientMs: Summary;
  /** The main thread's time on a CPU during the import (source maps on). */
  readonly threadCpuMsWithSourceMaps: Summary;
  /** The same without source maps. */
  readonly threadCpuMsWithoutSourceMaps: Summary;
  /**
   * What the budget judges: the main thread's CPU time of the import minus the bare baseline's in
   * the run next to it (source maps on), per pair; `addedMs` is its median.
   */
  readonly threadCpuDeltaToBareDocumentClientMs: Summary;
  /** 95% bootstrap confidence interval of that median. */
  readonly threadCpuDeltaConfidenceInterval: [number, number];
  /** The budget's figure: the median of `threadCpuDeltaToBareDocumentClientMs`, ms. */
  readonly addedMs: number;
  /**
   * Time the main thread slept during the import (waiting for a file read or a helper thread:
   * wall time less its CPU time and its wait for a CPU), minus the bare baseline's next to it.
   * Near zero: the CPU time is then the whole of what the bundle adds to an idle machine's wall time.
   */
  readonly asleepDeltaToBareDocumentClientMs: Summary;
  /** Median share of the import's wall time the main thread spent waiting for a CPU. */
  readonly runQueueShare: number;
  /**
   * The modelled INIT duration, ms: from the process's start (Node's own start) to the handler
   * loaded, source maps on, less the main thread's waits for a CPU (what an idle machine takes);
   * median of the runs. What the cost section counts as billed INIT time per cold start. Lambda's
   * runtime client and extensions add their own time on AWS, and ARM64 at the function's memory
   * size runs at its own speed: a model, not a measurement of AWS.
   */
  readonly modelledInitMs: number;
  /** The same, as measured (wall time, waits for a CPU included). */
  readonly modelledInitWallMs: number;
  readonly compilationsAtImport: number;
  readonly composition?: Record<string, number>;
  /** CPU self time in the bundle's code during the import, ms per load, by origin. */
  readonly profile?: Record<string, number>;
}

const field =
  <Key extends 'loadMs' | 'cpuMs' | 'threadCpuMs' | 'runQueueMs'>(key: Key) =>
  (results: readonly ProbeResult[]): number[] =>
    results.map((result) => result[key]);
const wall = field('loadMs');
const processCpu = field('cpuMs');
const threadCpu = field('threadCpuMs');
/** Wall time less the main thread's CPU time and its wait for a CPU: time it slept. */
const asleep = (results: readonly ProbeResult[]): number[] =>
  results.map((result) => result.loadMs - result.threadCpuMs - (result.runQueueMs || 0));

function differences(values: readonly number[], baselines: readonly number[]): number[] {
  return values.map((value, index) => value - (baselines[index] ?? Number.NaN));
}

/** The baselines and the control, bundled with the stack's options: name, entry, kind. */
const BASELINE_SOURCES = [
  ['hello-world handler (baseline)', 'bench/baselines/hello-world.ts', 'baseline'],
  ['bare DynamoDB DocumentClient handler (baseline)', 'bench/baselines/bare-document-client.ts', 'baseline'],
  ['classic zod object parse at load (positive control)', 'bench/baselines/zod-at-load.ts', 'control'],
] as const;

/** The timed runs of every candidate but the control, and the two baselines they are compared with. */
interface TimedLoads {
  readonly loads: Map<string, Loads>;
  readonly helloCandidate: Candidate;
  readonly bareCandidate: Candidate;
  readonly functions: readonly Candidate[];
}

export async function measureBundles(): Promise<SectionResult> {
  const work = await mkdtemp(join(tmpdir(), 'bench-bundles-'));
  try {
    const probeFile = join(work, 'probe.mjs');
    await writeFile(probeFile, PROBE);
    const options = await stackEsbuildOptions();
    const bundles = await functionBundles();
    const candidates = await bundleCandidates(work, options, bundles);
    const timed = await timeLoads(probeFile, candidates);
    const compilations = new Map<string, ProbeResult>();
    for (const candidate of candidates) {
      compilations.set(candidate.name, await probe(probeFile, candidate, true, true));
    }
    progress('bundles: CPU profiles of the imports');
    const profiles = new Map<string, Record<string, number>>();
    for (const candidate of candidates.filter(
      (item) => item.kind === 'function' || item === timed.bareCandidate,
    )) {
      profiles.set(candidate.name, await profileImport(probeFile, candidate, work));
    }
    return report(await bundleRows(candidates, bundles, timed, compilations, profiles));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Each function's bundle from `cdk.out`, then the baselines and the control bundled here; each with its composition. */
async function bundleCandidates(
  work: string,
  options: BuildOptions,
  bundles: readonly FunctionBundle[],
): Promise<Candidate[]> {
  const sharedEnvironment = bundles[0]?.environment ?? {};
  const candidates: Candidate[] = [];
  for (const bundle of bundles) {
    const entry = entryOf(bundle);
    const candidate: Candidate = {
      name: bundle.description,
      kind: 'function',
      handlerFile: bundle.handlerFile,
      directory: bundle.directory,
      environment: bundle.environment,
    };
    if (entry) {
      // Same entry and options again, only to learn what the bytes are made of.
      const { metafile } = await bundleEntry(options, entry, join(work, bundle.logicalId));
      candidate.composition = composition(metafile);
    }
    candidates.push(candidate);
  }
  for (const [name, entry, kind] of BASELINE_SOURCES) {
    const directory = join(work, entry.replace(/\W+/g, '-'));
    const { file, metafile } = await bundleEntry(options, entry, directory);
    candidates.push({
      name,
      kind,
      handlerFile: file,
      directory,
      environment: sharedEnvironment,
      composition: composition(metafile),
    });
  }
  return candidates;
}

/**
 * The timed loads: after one untimed load of each, `ROUNDS` rounds of the baselines, then each
 * function next to a run of the bare baseline, and each function again with source maps off.
 */
async function timeLoads(probeFile: string, candidates: readonly Candidate[]): Promise<TimedLoads> {
  const timedCandidates = candidates.filter((candidate) => candidate.kind !== 'control');
  const loads = new Map<string, Loads>(
    timedCandidates.map((candidate) => [candidate.name, { maps: [], adjacentBare: [], plain: [] }]),
  );
  const [helloCandidate, bareCandidate] = BASELINE_SOURCES.map(([name]) =>
    timedCandidates.find((candidate) => candidate.name === name),
  );
  if (!helloCandidate || !bareCandidate) throw new Error('The baselines were not bundled');
  const functions = timedCandidates.filter((candidate) => candidate.kind === 'function');
  const loaded = async (candidate: Candidate, sourceMaps: boolean) => {
    const result = await probe(probeFile, candidate, sourceMaps);
    if (result.handler !== 'function') throw new Error(`${candidate.name} exports no handler function`);
    return result;
  };
  const record = (candidate: Candidate, kind: keyof Loads, result: ProbeResult) =>
    loads.get(candidate.name)?.[kind].push(result);
  // One untimed load each first: the files are then in the page cache for every timed run alike.
  for (const candidate of timedCandidates) await probe(probeFile, candidate, true);
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 5 === 0)
      progress(`bundles: load-time rounds ${round + 1}–${Math.min(ROUNDS, round + 5)} of ${ROUNDS}`);
    for (const [candidate, sourceMaps] of [
      [helloCandidate, true],
      [helloCandidate, false],
      [bareCandidate, false],
    ] as const)
      record(candidate, sourceMaps ? 'maps' : 'plain', await loaded(candidate, sourceMaps));
    // Each function next to a run of the bare baseline, which goes first every other round for
    // each function (by the function's own place, not its place in the round: with 11 functions
    // that kept each function on one side for 11 rounds in a row, so a change in the machine
    // during the section fell on one order); the order of the functions rotates, so that no
    // bundle always runs right after another.
    for (let index = 0; index < functions.length; index++) {
      const place = (index + round) % functions.length;
      const candidate = functions[place];
      if (!candidate) continue;
      const { bareRun, functionRun } = await pair(candidate, (round + place) % 2 === 0);
      record(bareCandidate, 'maps', bareRun);
      record(candidate, 'maps', functionRun);
      record(candidate, 'adjacentBare', bareRun);
      record(candidate, 'plain', await loaded(candidate, false));
    }
  }
  // A verdict the pairs cannot tell apart gets more of them (settleVerdicts).
  await settleVerdicts(functions, loads, pair);
  return { loads, helloCandidate, bareCandidate, functions };

  async function pair(candidate: Candidate, bareFirst: boolean) {
    if (!bareCandidate) throw new Error('The baselines were not bundled');
    const first = await loaded(bareFirst ? bareCandidate : candidate, true);
    const second = await loaded(bareFirst ? candidate : bareCandidate, true);
    return bareFirst ? { bareRun: first, functionRun: second } : { bareRun: second, functionRun: first };
  }
}

/** The judged figures of a function's pairs: its main-thread CPU time less the bare baseline's next to it. */
const judgedDeltas = (loads: Loads | undefined): number[] =>
  differences(threadCpu(loads?.maps ?? []), threadCpu(loads?.adjacentBare ?? []));

/**
 * More pairs for each function whose judged interval holds the budget, `EXTRA_PAIRS` at a time
 * (half of them with the baseline first), up to `MAX_PAIRS`: on a machine busy with other work
 * one import's CPU time grows by up to 40 % when it is descheduled often (measured: the bare
 * baseline 55–90 ms in one series while other processes kept both cores busy), so single pairs
 * differ by ±20 ms and 25 of them leave an interval of ±3 ms around the median; the verdict is
 * then given on enough pairs to decide it, or on `MAX_PAIRS` and called borderline.
 * Extra pairs count only for the judged figures (the bare baseline's own rows keep one run a pair
 * of the rounds).
 */
async function settleVerdicts(
  functions: readonly Candidate[],
  loads: ReadonlyMap<string, Loads>,
  pair: (
    candidate: Candidate,
    bareFirst: boolean,
  ) => Promise<{ bareRun: ProbeResult; functionRun: ProbeResult }>,
): Promise<void> {
  const inDoubt = (candidate: Candidate) => {
    const deltas = judgedDeltas(loads.get(candidate.name));
    const [low, high] = medianConfidenceInterval(deltas);
    return deltas.length < MAX_PAIRS && low <= BUDGET_MS && BUDGET_MS <= high;
  };
  for (let doubtful = functions.filter(inDoubt); doubtful.length > 0; doubtful = doubtful.filter(inDoubt)) {
    progress(
      `bundles: ${EXTRA_PAIRS} more pairs of ${doubtful.map((candidate) => candidate.name.replace(/: .*$/, '')).join(', ')} (interval holds the budget)`,
    );
    for (let extra = 0; extra < EXTRA_PAIRS; extra++) {
      for (const candidate of doubtful) {
        const { bareRun, functionRun } = await pair(candidate, extra % 2 === 0);
        loads.get(candidate.name)?.maps.push(functionRun);
        loads.get(candidate.name)?.adjacentBare.push(bareRun);
      }
    }
  }
}

/** Each candidate's figures: sizes, load times, and what they add to the bare baseline next to them. */
async function bundleRows(
  candidates: readonly Candidate[],
  bundles: readonly FunctionBundle[],
  { loads, helloCandidate, bareCandidate, functions }: TimedLoads,
  compilations: ReadonlyMap<string, ProbeResult>,
  profiles: ReadonlyMap<string, Record<string, number>>,
): Promise<BundleRow[]> {
  const empty: Loads = { maps: [], adjacentBare: [], plain: [] };
  const hello = loads.get(helloCandidate.name) ?? empty;
  const bare = loads.get(bareCandidate.name) ?? empty;
  const bareFirstOfRound = bare.maps.filter((_, index) => index % functions.length === 0);
  const rows: BundleRow[] = [];
  for (const candidate of candidates) {
    const measured = loads.get(candidate.name) ?? empty;
    // Runs taken one a round: hello-world's, the bare baseline's first of each round, a function's
    // pairs of the rounds (not those settleVerdicts added).
    const onePerRound = (results: readonly ProbeResult[]) =>
      candidate === bareCandidate
        ? results.filter((_, index) => index % functions.length === 0)
        : results.slice(0, ROUNDS);
    // A function is paired with the bare baseline's run next to it; hello-world with the bare
    // baseline's first run of the same round; the bare baseline with itself (every delta 0).
    const neighbours =
      candidate === bareCandidate
        ? measured.maps
        : candidate.kind === 'function'
          ? measured.adjacentBare
          : bareFirstOfRound;
    const bundle = bundles.find((item) => item.handlerFile === candidate.handlerFile);
    const threadCpuDeltas =
      candidate.kind === 'function'
        ? judgedDeltas(measured)
        : differences(threadCpu(measured.maps), threadCpu(neighbours));
    rows.push({
      name: candidate.name,
      kind: candidate.kind,
      logicalId: bundle?.logicalId,
      sizes: await fileSizes(candidate.handlerFile),
      loadMsWithSourceMaps: summarize(wall(measured.maps)),
      loadMsWithoutSourceMaps: summarize(wall(measured.plain)),
      cpuMsWithSourceMaps: summarize(processCpu(measured.maps)),
      ratioToHelloWorld: pairedRatios(wall(onePerRound(measured.maps)), wall(hello.maps)),
      ratioToBareDocumentClient: pairedRatios(wall(measured.maps), wall(neighbours)),
      deltaToBareDocumentClientMs: pairedDeltas(wall(measured.maps), wall(neighbours)),
      deltaConfidenceInterval: medianConfidenceInterval(differences(wall(measured.maps), wall(neighbours))),
      deltaToBareDocumentClientMsWithoutSourceMaps: pairedDeltas(wall(measured.plain), wall(bare.plain)),
      cpuDeltaToBareDocumentClientMs: pairedDeltas(processCpu(measured.maps), processCpu(neighbours)),
      threadCpuMsWithSourceMaps: summarize(threadCpu(measured.maps)),
      threadCpuMsWithoutSourceMaps: summarize(threadCpu(measured.plain)),
      threadCpuDeltaToBareDocumentClientMs: summarize(threadCpuDeltas),
      threadCpuDeltaConfidenceInterval: medianConfidenceInterval(threadCpuDeltas),
      addedMs: median(threadCpuDeltas),
      asleepDeltaToBareDocumentClientMs: pairedDeltas(asleep(measured.maps), asleep(neighbours)),
      runQueueShare: median(measured.maps.map((result) => result.runQueueMs / result.loadMs)),
      modelledInitMs: median(measured.maps.map((result) => result.initMs - (result.initRunQueueMs || 0))),
      modelledInitWallMs: median(measured.maps.map((result) => result.initMs)),
      compilationsAtImport: compilations.get(candidate.name)?.compilations ?? Number.NaN,
      composition: candidate.composition,
      profile: profiles.get(candidate.name),
    });
  }
  return rows;
}

/** What the profiles say about zod (its module code and any schema built at load; never compiled). */
function profileNotes(rows: readonly BundleRow[]): string[] {
  const withZod = rows.filter((row) => (row.profile?.zod ?? 0) > 0);
  if (withZod.length === 0) return [];
  return [
    `CPU self time in zod/mini during the import (its own module code, and any schema built at load; zod/mini generates no code): ${withZod
      .map((row) => `${shortName(row)} ${formatNumber(row.profile?.zod ?? 0, 1)} ms`)
      .join(
        ', ',
      )} per load (profiled; sampling adds some overhead). The event schemas are built on first use.`,
  ];
}

/** What `--enable-source-maps` costs each load: Node reads and parses the bundle's map when it loads it. */
function sourceMapNote(rows: readonly BundleRow[]): string[] {
  const bare = rows.find((row) => row.name.startsWith('bare DynamoDB'));
  const functions = rows.filter((row) => row.kind === 'function');
  if (!bare || functions.length === 0) return [];
  const cost = (row: BundleRow) =>
    row.threadCpuMsWithSourceMaps.median - row.threadCpuMsWithoutSourceMaps.median;
  const costs = functions.map(cost).sort((a, b) => a - b);
  return [
    `NODE_OPTIONS=--enable-source-maps (as deployed) costs every load the reading and parsing of the bundle's source map, not only a formatted stack trace: ${formatNumber(cost(bare), 1)} ms of main-thread CPU for the bare baseline, ${formatNumber(costs[0] ?? Number.NaN, 1)}–${formatNumber(costs.at(-1) ?? Number.NaN, 1)} ms for the functions (median with maps on less median with maps off).`,
  ];
}

function interval([low, high]: readonly [number, number]): string {
  return `${formatNumber(low, 1)}–${formatNumber(high, 1)}`;
}

const ci = (row: BundleRow): string => interval(row.deltaConfidenceInterval);

/** Says when the noise of this machine leaves the verdict open. */
function verdictNote(row: BundleRow): string {
  const [low, high] = row.threadCpuDeltaConfidenceInterval;
  return low <= BUDGET_MS && BUDGET_MS <= high ? ', borderline: the interval spans the budget' : '';
}

const percent = (share: number): string => `${formatNumber(100 * share, 0)} %`;

function shortName(row: BundleRow): string {
  return row.name.replace(/: .*$/, '').replace('/partner-api/v1', '');
}

function report(rows: readonly BundleRow[]): SectionResult {
  const functions = rows.filter((row) => row.kind === 'function');
  const control = rows.find((row) => row.kind === 'control');
  const timed = rows.filter((row) => row.kind !== 'control');
  const tables = [loadTable(timed), budgetTable(timed), compositionTable(rows, timed), profileTable(rows)];
  const budgets = budgetChecks(functions, control);
  return {
    id: 'bundles',
    title: '2. Lambda bundles: size and module-load time',
    method: METHOD,
    tables,
    budgets,
    notes: [
      `Positive control (classic zod object parse at load): ${control?.compilationsAtImport ?? 'n/a'} Function()/eval calls during its import; the service uses zod/mini, which never compiles.`,
      ...profileNotes(rows),
      ...sourceMapNote(rows),
    ],
    data: {
      rounds: ROUNDS,
      budgetMs: BUDGET_MS,
      judgedOn: 'addedMs: median paired delta of the main thread CPU time of the import, source maps on',
      bundles: rows,
      /** Modelled INIT duration per function (ms, by logical id of the sandbox template). */
      modelledInitMsByLogicalId: Object.fromEntries(
        functions.flatMap((row) => (row.logicalId ? [[row.logicalId, row.modelledInitMs]] : [])),
      ),
    },
  };
}

/** Module load, wall time, with source maps on and off, against both baselines. */
function loadTable(timed: readonly BundleRow[]): Table {
  return {
    caption: `Module load (dynamic import() in a fresh node process), wall time, ms, ${ROUNDS} runs each, with NODE_OPTIONS=--enable-source-maps as deployed and without. Δ (maps on) is paired with the bare baseline's run next to it, Δ (maps off) per round.`,
    columns: [
      'Bundle',
      'index.mjs',
      '.map',
      'zipped ≈',
      'load, source maps on',
      'load, source maps off',
      '× hello-world',
      '× bare DocumentClient',
      'Δ vs bare DocumentClient (maps on)',
      '95% CI of the Δ median',
      'Δ (maps off)',
      'Δ CPU time (maps on)',
      'Function() at import',
    ],
    rows: timed.map((row) => [
      row.kind === 'function' ? shortName(row) : row.name,
      formatBytes(row.sizes.code),
      formatBytes(row.sizes.map),
      formatBytes(row.sizes.zipped),
      formatSummary(row.loadMsWithSourceMaps),
      formatSummary(row.loadMsWithoutSourceMaps),
      formatSummary(row.ratioToHelloWorld, 2),
      formatSummary(row.ratioToBareDocumentClient, 2),
      `${formatSummary(row.deltaToBareDocumentClientMs)} ms`,
      row.kind === 'function' ? `${ci(row)} ms` : '—',
      `${formatSummary(row.deltaToBareDocumentClientMsWithoutSourceMaps)} ms`,
      `${formatSummary(row.cpuDeltaToBareDocumentClientMs)} ms`,
      String(row.compilationsAtImport),
    ]),
  };
}

/** What the budget judges: the main thread's CPU time of each import, paired with the bare baseline's. */
function budgetTable(timed: readonly BundleRow[]): Table {
  return {
    caption: `What the budget judges: each function's import next to a run of the bare DocumentClient baseline (the baseline first every other round), ${ROUNDS} pairs (${EXTRA_PAIRS} more at a time, up to ${MAX_PAIRS}, while the interval holds the budget: the pairs column), source maps on; Δ per pair, its median with a 95% bootstrap interval. The main thread's CPU time is what the bundle's loading costs; wall time adds the machine's other work (the wait for a CPU) and the time the thread slept. Modelled INIT: from Node's start to the handler loaded, less the waits for a CPU.`,
    columns: [
      'Bundle',
      'main-thread CPU, maps on',
      'Δ main-thread CPU (judged)',
      '95% CI of the judged Δ',
      'pairs',
      'Δ wall time',
      'Δ asleep',
      'waiting for a CPU',
      'modelled INIT ms',
      'INIT as measured',
    ],
    rows: timed.map((row) => [
      row.kind === 'function' ? shortName(row) : row.name,
      formatSummary(row.threadCpuMsWithSourceMaps),
      `${formatSummary(row.threadCpuDeltaToBareDocumentClientMs)} ms`,
      row.kind === 'function' ? `${interval(row.threadCpuDeltaConfidenceInterval)} ms` : '—',
      row.kind === 'function' ? String(row.threadCpuDeltaToBareDocumentClientMs.runs) : '—',
      `${formatNumber(row.deltaToBareDocumentClientMs.median, 1)} ms`,
      `${formatNumber(row.asleepDeltaToBareDocumentClientMs.median, 1)} ms`,
      percent(row.runQueueShare),
      formatNumber(row.modelledInitMs, 1),
      formatNumber(row.modelledInitWallMs, 1),
    ]),
  };
}

/** What the bytes are: output bytes by origin. */
function compositionTable(rows: readonly BundleRow[], timed: readonly BundleRow[]): Table {
  const origins = [...new Set(rows.flatMap((row) => Object.keys(row.composition ?? {})))].sort();
  return {
    caption:
      'What the bytes are (output bytes by origin, from an esbuild metafile of the same entry with the same options)',
    columns: ['Bundle', ...origins],
    rows: timed.map((row) => [
      row.kind === 'function' ? shortName(row) : row.name,
      ...origins.map((origin) => formatBytes(row.composition?.[origin] ?? 0)),
    ]),
  };
}

/** Where the import's time goes, by origin, from the CPU profiles. */
function profileTable(rows: readonly BundleRow[]): Table {
  const profiled = rows.filter((row) => row.profile);
  const order = [
    'app code (lambdas/)',
    'zod',
    'preact',
    'middy',
    'Powertools logger',
    'AWS SDK (@aws-sdk, @smithy, @aws-crypto)',
    'other packages',
    'other',
    TOP_LEVEL,
    COMPILE,
    SOURCE_MAPS,
    BUILTINS,
    NODE_LOADING,
    'V8 (other)',
    'GC',
    'idle (waiting for I/O)',
  ];
  const rank = (origin: string) => (order.includes(origin) ? order.indexOf(origin) : order.length);
  const profileOrigins = [...new Set(profiled.flatMap((row) => Object.keys(row.profile ?? {})))].sort(
    (a, b) => rank(a) - rank(b) || a.localeCompare(b),
  );
  return {
    caption: `Where the import's time goes, ms per load: V8 CPU profile of the import() alone (100 µs sampling, mean of ${PROFILE_RUNS} loads, source maps on); bundle samples mapped to packages through the source map`,
    columns: ['Bundle', ...profileOrigins, 'total'],
    rows: profiled.map((row) => [
      row.kind === 'function' ? shortName(row) : row.name,
      ...profileOrigins.map((origin) => formatNumber(row.profile?.[origin] ?? 0, 1)),
      formatNumber(
        Object.values(row.profile ?? {}).reduce((sum, value) => sum + value, 0),
        1,
      ),
    ]),
  };
}

/** Each function's load-time budget, and that it compiles no schema at load (the control shows the counter works). */
function budgetChecks(functions: readonly BundleRow[], control: BundleRow | undefined): BudgetCheck[] {
  const budgets: BudgetCheck[] = [];
  for (const row of functions) {
    budgets.push({
      name: `${shortName(row)}: load time added to bare DocumentClient`,
      budget: `≤ ${BUDGET_MS} ms (main-thread CPU time of the import, source maps on as deployed; median of ${ROUNDS} paired runs, up to ${MAX_PAIRS} while the 95% interval holds the budget)`,
      measured: `median ${formatNumber(row.addedMs, 1)} ms, 95% CI ${interval(row.threadCpuDeltaConfidenceInterval)}, ${row.threadCpuDeltaToBareDocumentClientMs.runs} pairs${verdictNote(row)} (wall time ${formatNumber(row.deltaToBareDocumentClientMs.median, 1)} ms, 95% CI ${ci(row)}; maps off ${formatNumber(row.deltaToBareDocumentClientMsWithoutSourceMaps.median, 1)} ms; asleep ${formatNumber(row.asleepDeltaToBareDocumentClientMs.median, 1)} ms; waiting for a CPU ${percent(row.runQueueShare)} of the import)`,
      pass: row.addedMs <= BUDGET_MS,
    });
  }
  const controlCounted = (control?.compilationsAtImport ?? 0) > 0;
  for (const row of functions) {
    budgets.push({
      name: `${shortName(row)}: no schema compiled at load`,
      budget: '0 Function()/eval calls during import (control bundle must show > 0)',
      measured: `${row.compilationsAtImport} (control: ${control?.compilationsAtImport ?? 'n/a'})${
        (row.profile?.zod ?? 0) > 0
          ? `; CPU self time in zod/mini during the import: ${formatNumber(row.profile?.zod ?? 0, 1)} ms`
          : ''
      }`,
      pass: row.compilationsAtImport === 0 && controlCounted,
    });
  }
  return budgets;
}

/** How the section measures, as the report states it. */
const METHOD = [
  'Bundles are the ones CDK built into `cdk.out` (synthesized again when older than `lambdas/`, `lib/`, `bin/` or the lock file): each `AWS::Lambda::Function` of `PartnerApi-sandbox.template.json` is mapped to its asset folder through `Code.S3Key` (`<hash>.zip`) and the asset manifest.',
  "Each is loaded in a fresh `node` process the way the Lambda Node.js runtime loads an ESM handler (`await import(fileURL)` of `index.mjs`), with the function's environment from the template (tableName() and the secret ARN as stand-ins, STAGE, POWERTOOLS_*, NODE_OPTIONS) plus the variables the runtime sets (AWS_REGION, AWS_LAMBDA_*, credentials); the time is that of the `import()` alone.",
  'Why it is budgeted: Lambda bills the INIT phase of on-demand functions packaged as ZIP files on managed runtimes since 1 August 2025, at the same rate as invocations (https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/), so every millisecond a bundle adds to its module load is paid at each cold start as well as waited for.',
  `The budget: each function's bundle adds at most ${BUDGET_MS} ms to the load of a bare DocumentClient handler, judged on the main thread's CPU time of the import (from the Linux scheduler, /proc/thread-self/schedstat, exact after a 1 ms sleep outside the timed import) rather than on wall time, which on a busy machine grows with the other processes' work: each function runs next to a run of the bare baseline (the baseline first every other round, the functions' order rotating), and the verdict is the median of the ${ROUNDS} paired differences, reported with its 95% bootstrap interval; while that interval holds the budget, the function gets ${EXTRA_PAIRS} more pairs (half of them with the baseline first), up to ${MAX_PAIRS}, because on a machine busy with other work one import's CPU time grows by up to 40 % when it is often descheduled and single pairs then differ by ±20 ms. Wall time, the time the thread slept (file reads, helper threads) and its wait for a CPU are reported beside it; on an idle machine the wall-time delta is the CPU delta plus the sleep delta.`,
  "The modelled INIT duration (in the section's data, `modelledInitMs` per bundle, for the cost section) is the time from Node's own start to the handler loaded, source maps on, less the main thread's waits for a CPU; Lambda's runtime client and extensions add theirs on AWS.",
  "Baselines are bundled with the stack's own esbuild options (`BUNDLING_DEFAULTS`: ESM, minify, source maps without sources, node24 target, the createRequire banner, SDK included): a hello-world handler and a handler with one DynamoDB DocumentClient and one GetCommand (bench/baselines/). A few more loads of each function run under the V8 CPU profiler to show which packages the import's time is spent in.",
  '"No schema compiled at load": a separate run of each bundle wraps the global `Function` constructor and `eval` in counters before the import (zod compiles an object schema\'s parser with `new Function` on its first parse, and probes `new Function("")` once); a positive-control bundle that parses with a classic-zod object schema at load must count > 0, which shows the counter sees zod.',
  `Measured on ${process.platform}/${process.arch} with Node ${process.version}; Lambda runs Node.js 24 on ARM64, so the absolute times differ there, the deltas and ratios much less.`,
].join(' ');
