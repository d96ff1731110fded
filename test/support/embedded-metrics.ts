import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';

/**
 * For a test file of a function that publishes metrics with Powertools (the embedded metric format,
 * one JSON line on stdout per flush): imports the handler with the metrics environment the stack
 * sets (`namespace`, the service), fixes the clock at `now`, and gives back the handler and the
 * metric lines each test wrote.
 */
export function captureEmbeddedMetrics<Module>(
  namespace: string,
  now: number,
  load: () => Promise<Module>,
): { readonly loaded: () => Module; readonly metricLines: () => Record<string, unknown>[] } {
  let module: Module | undefined;
  let written: string[] = [];
  beforeAll(async () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', namespace);
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'partner-api');
    module = await load();
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });
  beforeEach(() => {
    vi.useFakeTimers({ now, toFake: ['Date'] });
    written = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
  return {
    loaded: () => {
      if (!module) throw new Error('The module is loaded in beforeAll');
      return module;
    },
    metricLines: () =>
      written
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.includes('"_aws"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
