/**
 * GET /usage on the local server under autocannon: requests per second and p50/p99 latency,
 * with enough keys that the 120-per-minute limit never interferes.
 * Run: npx tsx bench/usage-throughput.ts [seconds] [connections]
 */
import autocannon from 'autocannon';
import { mintKeys, startServiceProcess, useServiceTable } from './lib/service-process';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 20);
const service = await startServiceProcess();
try {
  useServiceTable(service.runtime);
  const keys = await mintKeys(1, Number(process.env.BENCH_KEYS ?? 1_000), ['metrics:read', 'revenue:read']);
  let next = 0;
  const run = (duration: number) =>
    autocannon({
      url: `${service.runtime.apiBaseUrl}/usage`,
      connections,
      duration,
      requests: [
        {
          setupRequest: (request) => {
            next = (next + 1) % keys.length;
            return { ...request, headers: { ...request.headers, Authorization: `Bearer ${keys[next]}` } };
          },
        },
      ],
    });
  await run(2); // warm-up: handler modules loaded, key and rate-window caches filled
  const result = await run(seconds);
  console.log(
    JSON.stringify({
      endpoint: 'GET /usage',
      seconds,
      connections,
      keys: keys.length,
      requestsPerSecond: result.requests.average,
      latencyMs: {
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
      },
      total: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors,
    }),
  );
} finally {
  await service.stop();
}
