/**
 * Latency of the provisioning POST (marketplace → one DynamoDB transaction → 303) on the local
 * server, measured from a client over HTTP, with `concurrency` hosts activating at once.
 * Run: npx tsx bench/provisioning-latency.ts [hosts] [concurrency]
 */
import { startServiceProcess, useServiceTable } from './lib/service-process';

const hosts = Number(process.argv[2] ?? 60);
const concurrency = Number(process.argv[3] ?? 1);

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const service = await startServiceProcess();
try {
  useServiceTable(service.runtime);
  const { createActivationLink } = await import('../lib/operations/links');
  const { outboxMailer } = await import('../lib/operations/mailer');
  const target = {
    stage: 'local' as const,
    activationBaseUrl: service.runtime.activationBaseUrl,
    mailer: outboxMailer(service.runtime.outboxDirectory),
  };
  const run = Date.now().toString(36);

  /** Opens a link and the marketplace like a browser; returns what the POST needs. */
  async function prepare(index: number) {
    const { url } = await createActivationLink(
      target,
      {
        slug: 'demo-pms',
        email: `bench-${run}-${index}@example.com`,
        name: `Bench ${index}`,
        pmsHotelId: `BENCH-${run}-${index}`,
        products: ['assistant', 'upsells'],
        ttlSeconds: 3_600,
      },
      Date.now(),
    );
    const activated = await fetch(url, { redirect: 'manual' });
    const cookie = (activated.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const marketplaceUrl = new URL('marketplace', url).toString();
    const page = await (await fetch(marketplaceUrl, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    return { marketplaceUrl, cookie, csrf };
  }

  const prepared = await Promise.all(Array.from({ length: hosts }, (_, index) => prepare(index)));
  const timings: number[] = [];
  let failures = 0;
  let next = 0;
  async function worker() {
    while (next < prepared.length) {
      const host = prepared[next++];
      if (!host) break;
      const started = performance.now();
      const response = await fetch(host.marketplaceUrl, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: host.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([
          ['csrf', host.csrf],
          ['product', 'assistant'],
          ['product', 'upsells'],
        ]).toString(),
      });
      timings.push(performance.now() - started);
      if (response.status !== 303 || !response.headers.get('location')?.startsWith('onboarding')) failures++;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const sorted = [...timings].sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      measure: 'provisioning POST (marketplace)',
      hosts,
      concurrency,
      p50Ms: Number(percentile(sorted, 50).toFixed(1)),
      p99Ms: Number(percentile(sorted, 99).toFixed(1)),
      maxMs: Number((sorted.at(-1) ?? 0).toFixed(1)),
      failures,
    }),
  );
} finally {
  await service.stop();
}
