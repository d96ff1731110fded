import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { FUNCTION_MEMORY_MB, FUNCTION_TIMEOUT_SECONDS } from '../lib/function-defaults';

const INSTANCE_SCRIPT = new URL('./lambda-instance.mjs', import.meta.url);

/** One function as the local runtime runs it. */
export interface LocalFunction {
  /** Its name in logs (the route table's name: `authorizer`, `usage`, `revealPage`...). */
  readonly name: string;
  /** Absolute path of the bundle (an ES module) exporting `handler`. */
  readonly module: string;
  /** The function's environment variables: an instance sees these and nothing else. */
  readonly environment: Record<string, string>;
  /** @default FUNCTION_TIMEOUT_SECONDS */
  readonly timeoutSeconds?: number;
  /** @default FUNCTION_MEMORY_MB (reported in the context; not enforced) */
  readonly memoryMb?: number;
}

export interface LambdaRuntimeOptions {
  /** Most instances of one function at once. */
  readonly maxInstances: number;
  /** An instance idle this long is retired; its function's next request is a cold start. */
  readonly idleSeconds: number;
}

/** The defaults `npm start` uses; see docs/design/local-runtime.md. */
export const DEFAULT_LAMBDA_RUNTIME_OPTIONS: LambdaRuntimeOptions = { maxInstances: 10, idleSeconds: 300 };

/** What one invocation did, for the access log. */
export interface InvocationReport {
  readonly functionName: string;
  /** `usage#3`: the function and which of its instances served. */
  readonly instance: string;
  /** Set when this invocation started the instance: its init (module load) time. */
  readonly coldStartMs?: number;
  /** Time spent waiting for a free instance (all `maxInstances` busy). */
  readonly queuedMs: number;
  readonly durationMs: number;
  /** Set when the invocation failed: Lambda's error type and message, as its logs show them. */
  readonly error?: string;
}

/** A function's answer as Lambda gives it to API Gateway. */
export type InvocationOutcome =
  | { readonly ok: true; readonly payload: string; readonly report: InvocationReport }
  | {
      readonly ok: false;
      /** `Unhandled` for an error thrown by the handler, `Runtime.*` for the runtime's own. */
      readonly errorType: string;
      readonly errorMessage: string;
      readonly report: InvocationReport;
    };

type InstanceMessage =
  | { type: 'ready'; initMs: number }
  | { type: 'init-error'; errorType: string; errorMessage: string }
  | { type: 'result'; id: string; payload: string }
  | { type: 'error'; id: string; errorType: string; errorMessage: string }
  | { type: 'heap'; id: string; usedHeapBytes: number };

type Settled = { ok: true; payload: string } | { ok: false; errorType: string; errorMessage: string };

/**
 * The heap Lambda's Node.js runtime gives a function of `memoryMb`: a tenth of it for the young
 * generation, the rest for the old one (the runtime's bootstrap sets --max-semi-space-size and
 * --max-old-space-size so). A function that leaks fails locally as it would in AWS.
 */
function heapLimits(memoryMb: number) {
  const young = Math.floor(memoryMb / 10);
  return { maxYoungGenerationSizeMb: young, maxOldGenerationSizeMb: memoryMb - young };
}

/** An execution environment: a worker thread that loaded the function's module once. */
class Instance {
  readonly id: string;
  readonly worker: Worker;
  /** Resolves with the init time once the module has loaded; rejects if it could not. */
  readonly ready: Promise<number>;
  private pending: { id: string; settle: (outcome: Settled) => void } | undefined;
  private heapRequests = new Map<string, (usedHeapBytes: number) => void>();
  private idleTimer: NodeJS.Timeout | undefined;
  alive = true;

  constructor(
    readonly fn: LocalFunction,
    sequence: number,
    private readonly onExit: (instance: Instance) => void,
  ) {
    this.id = `${fn.name}#${sequence}`;
    this.worker = new Worker(INSTANCE_SCRIPT, {
      env: { ...fn.environment },
      // Lambda starts Node with the function's NODE_OPTIONS (the stack sets --enable-source-maps).
      execArgv: (fn.environment.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
      resourceLimits: heapLimits(fn.memoryMb ?? FUNCTION_MEMORY_MB),
      workerData: {
        module: fn.module,
        functionName: fn.name,
        instanceId: this.id,
        memoryMb: fn.memoryMb ?? FUNCTION_MEMORY_MB,
      },
      stdout: false,
      stderr: false,
    });
    this.ready = new Promise<number>((resolve, reject) => {
      this.worker.on('message', (message: InstanceMessage) => {
        if (message.type === 'ready') resolve(message.initMs);
        else if (message.type === 'init-error')
          reject(Object.assign(new Error(message.errorMessage), { errorType: 'Runtime.ImportModuleError' }));
        else if (message.type === 'result' && message.id === this.pending?.id)
          this.finish({ ok: true, payload: message.payload });
        else if (message.type === 'error' && message.id === this.pending?.id)
          this.finish({ ok: false, errorType: 'Unhandled', errorMessage: message.errorMessage });
        else if (message.type === 'heap') {
          this.heapRequests.get(message.id)?.(message.usedHeapBytes);
          this.heapRequests.delete(message.id);
        }
      });
    });
    this.ready.catch(() => undefined);
    this.worker.on('error', (error) => {
      // An uncaught exception or unhandled rejection: Lambda's runtime exits and the environment is reset.
      this.finish({ ok: false, errorType: 'Runtime.ExitError', errorMessage: error.message });
    });
    this.worker.on('exit', () => {
      this.alive = false;
      this.finish({ ok: false, errorType: 'Runtime.ExitError', errorMessage: 'The runtime exited' });
      this.onExit(this);
    });
  }

  private finish(outcome: Settled): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.settle(outcome);
  }

  /** Runs one invocation; past the function's timeout the environment is stopped, as Lambda does. */
  invoke(event: string): Promise<Settled> {
    const timeoutMs = (this.fn.timeoutSeconds ?? FUNCTION_TIMEOUT_SECONDS) * 1000;
    const id = randomUUID();
    return new Promise<Settled>((resolve) => {
      const timer = setTimeout(() => {
        this.finish({
          ok: false,
          errorType: 'Sandbox.Timedout',
          errorMessage: `Task timed out after ${timeoutMs / 1000} seconds`,
        });
        void this.stop();
      }, timeoutMs);
      this.pending = {
        id,
        settle: (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        },
      };
      this.worker.postMessage({ id, event, requestId: randomUUID(), deadlineMs: Date.now() + timeoutMs });
    });
  }

  /** The heap the instance holds after a full garbage collection, between invocations. */
  usedHeapAfterGc(): Promise<number> {
    const id = randomUUID();
    return new Promise<number>((resolve) => {
      this.heapRequests.set(id, resolve);
      this.worker.postMessage({ id });
    });
  }

  /** Retires the instance after `idleMs` without work. */
  idleFor(idleMs: number): void {
    this.idleTimer = setTimeout(() => void this.stop(), idleMs);
    this.idleTimer.unref();
  }

  busy(): void {
    clearTimeout(this.idleTimer);
  }

  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.alive = false;
    await this.worker.terminate();
  }
}

/** The instances of one function: reuse an idle one, start one up to the cap, else wait. */
class FunctionInstances {
  private readonly instances = new Set<Instance>();
  private readonly idle: Instance[] = [];
  private readonly waiting: ((instance: Instance | undefined) => void)[] = [];
  private sequence = 0;

  constructor(
    private readonly fn: LocalFunction,
    private readonly options: LambdaRuntimeOptions,
  ) {}

  private start(): Instance {
    this.sequence += 1;
    const instance = new Instance(this.fn, this.sequence, (gone) => {
      this.instances.delete(gone);
      const index = this.idle.indexOf(gone);
      if (index >= 0) this.idle.splice(index, 1);
      // A waiting request gets the place the instance left.
      this.waiting.shift()?.(undefined);
    });
    this.instances.add(instance);
    return instance;
  }

  /** An instance for one invocation, and whether this invocation starts it (a cold start). */
  private async acquire(): Promise<{ instance: Instance; cold: boolean }> {
    for (;;) {
      // The most recently used idle instance first, so that the others stay idle and retire.
      const warm = this.idle.pop();
      if (warm?.alive) {
        warm.busy();
        return { instance: warm, cold: false };
      }
      if (warm) continue;
      if (this.instances.size < this.options.maxInstances) return { instance: this.start(), cold: true };
      const handedOver = await new Promise<Instance | undefined>((resolve) => this.waiting.push(resolve));
      if (handedOver?.alive) return { instance: handedOver, cold: false };
    }
  }

  private release(instance: Instance): void {
    if (!instance.alive) return;
    const next = this.waiting.shift();
    if (next) {
      next(instance);
      return;
    }
    this.idle.push(instance);
    instance.idleFor(this.options.idleSeconds * 1000);
  }

  async invoke(event: string): Promise<InvocationOutcome> {
    const queuedFrom = performance.now();
    const { instance, cold } = await this.acquire();
    const started = performance.now();
    let coldStartMs: number | undefined;
    let settled: Settled;
    try {
      const initMs = await instance.ready;
      if (cold) coldStartMs = initMs;
      settled = await instance.invoke(event);
    } catch (error) {
      // The module failed to load: Lambda reports an init error and starts afresh next time.
      settled = {
        ok: false,
        errorType: (error as { errorType?: string }).errorType ?? 'Runtime.Unknown',
        errorMessage: (error as Error).message,
      };
      await instance.stop();
    }
    this.release(instance);
    const report: InvocationReport = {
      functionName: this.fn.name,
      instance: instance.id,
      queuedMs: started - queuedFrom,
      durationMs: performance.now() - started,
      ...(coldStartMs === undefined ? {} : { coldStartMs }),
      ...(settled.ok ? {} : { error: `${settled.errorType}: ${settled.errorMessage}` }),
    };
    return { ...settled, report };
  }

  /** Heap after GC of each idle instance (busy ones are skipped: they are mid-invocation). */
  async idleHeaps(): Promise<number[]> {
    const idle = this.idle.splice(0).filter((instance) => instance.alive);
    for (const instance of idle) instance.busy();
    const heaps = await Promise.all(idle.map((instance) => instance.usedHeapAfterGc()));
    for (const instance of idle) this.release(instance);
    return heaps;
  }

  /** How many instances are alive (tests, logs). */
  get size(): number {
    return this.instances.size;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.instances].map((instance) => instance.stop()));
    for (const waiter of this.waiting.splice(0)) waiter(undefined);
  }
}

/**
 * Lambda's instance model on one machine. Each function runs in isolated instances (worker
 * threads: their own modules, caches, clients and environment), each serving one request at a
 * time; a request that finds every instance busy starts a new one (a cold start) up to
 * `maxInstances`, and waits for a free one beyond; an instance idle for `idleSeconds` is
 * retired. Nothing is shared between instances but the network, so in-memory state behaves as
 * it does in AWS, where every request may land on a different instance.
 */
export class LocalLambdaRuntime {
  private readonly functions = new Map<string, FunctionInstances>();

  constructor(
    functions: readonly LocalFunction[],
    readonly options: LambdaRuntimeOptions = DEFAULT_LAMBDA_RUNTIME_OPTIONS,
  ) {
    if (!(options.maxInstances >= 1)) throw new Error('maxInstances must be at least 1');
    for (const fn of functions) this.functions.set(fn.name, new FunctionInstances(fn, options));
  }

  /** Invokes a function synchronously (RequestResponse) with an event, as API Gateway does. */
  invoke(functionName: string, event: unknown): Promise<InvocationOutcome> {
    const fn = this.functions.get(functionName);
    if (!fn) throw new Error(`No function ${functionName} in the local runtime`);
    return fn.invoke(JSON.stringify(event));
  }

  /**
   * Memory held by the idle instances after a full GC, to tell a leak from a heap that V8 simply
   * let grow (`kill -USR2` on `npm start` prints it).
   */
  async heapAfterGc(): Promise<{ instances: number; usedHeapBytes: number }> {
    const heaps = (await Promise.all([...this.functions.values()].map((fn) => fn.idleHeaps()))).flat();
    return { instances: heaps.length, usedHeapBytes: heaps.reduce((sum, bytes) => sum + bytes, 0) };
  }

  /** Live instances per function. */
  instanceCounts(): Record<string, number> {
    return Object.fromEntries([...this.functions].map(([name, fn]) => [name, fn.size]));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.functions.values()].map((fn) => fn.stop()));
  }
}
