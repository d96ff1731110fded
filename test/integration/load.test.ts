import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

const run = promisify(execFile);
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
});

async function fixtures(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'test/support/load-fixtures.ts', ...args],
    {
      env: { ...process.env, PARTNER_API_LOCAL_DIR: server?.directory ?? '' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function api(path: string, key: string) {
  const response = await fetch(`${server?.runtime.apiBaseUrl}${path}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  return (await response.json()) as Record<string, unknown>;
}

/** One host's activation in a browser: open the link, load the marketplace, submit it. */
async function activate(link: string): Promise<number> {
  const opened = await fetch(link, { redirect: 'manual' });
  const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const marketplace = new URL('marketplace', link).toString();
  const csrf =
    /name="csrf" value="([^"]+)"/.exec(
      await (await fetch(marketplace, { headers: { cookie } })).text(),
    )?.[1] ?? '';
  const submitted = await fetch(marketplace, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([
      ['csrf', csrf],
      ['product', 'assistant'],
      ['product', 'upsells'],
    ]).toString(),
  });
  return submitted.status;
}

/**
 * The load is bounded twice: at most REQUESTS requests, for at most SECONDS seconds, whichever
 * ends first. What the test asserts (no 5xx, nothing lost, memory stable) holds for however many
 * fit, so a slow or busy machine sends fewer and still passes; throughput is the bench's to
 * measure (`npm run bench`, section 1). The local server answers about 110 a second on 2 cores
 * beside the rest of the suite, so `npm test` sends about 10,000 (on the synthesized bundles in
 * CI's `npm run test:deployed`); LOAD_REQUESTS=20000 LOAD_SECONDS=300 for a longer run.
 */
const REQUESTS = Number(process.env.LOAD_REQUESTS ?? 10_000);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 90);
/** Fewer than this and the run says nothing about load: the kinds of request cycle over 20 entries. */
const FEWEST_REQUESTS = 500;

describe('bounded load on the local server (loopback only, stops by itself)', () => {
  it(`up to ${REQUESTS.toLocaleString('en')} mixed requests in ${SECONDS} s over 50 connections: zero 5xx, nothing lost, memory stable`, async () => {
    server = await startServerProcess({ LOCAL_LAMBDA_MAX_INSTANCES: '4' });
    const { keys, metricsOnlyKeys, links } = (await fixtures('prepare', '300', '20')) as {
      keys: string[];
      metricsOnlyKeys: string[];
      links: string[];
    };
    const [probeKey = ''] = keys;
    const before = {
      seats: Number((await api('/usage', probeKey)).active_seats),
      reservations: Number(
        (
          (await api('/properties/1/pricing-signals?lookback_days=365', probeKey)).signals as {
            total_reservations: number;
          }
        ).total_reservations,
      ),
    };
    // One entry per kind of request; autocannon cycles through them on every connection.
    let nextKey = 0;
    let nextMetricsKey = 0;
    const withKey = (request: Record<string, unknown>) => {
      nextKey += 1;
      return {
        ...request,
        headers: { ...(request.headers as object), authorization: `Bearer ${keys[nextKey % keys.length]}` },
      };
    };
    const withMetricsKey = (request: Record<string, unknown>) => {
      nextMetricsKey += 1;
      return {
        ...request,
        headers: {
          ...(request.headers as object),
          authorization: `Bearer ${metricsOnlyKeys[nextMetricsKey % metricsOnlyKeys.length]}`,
        },
      };
    };
    const route = (path: string, setupRequest = withKey, method = 'GET') => ({
      method,
      path: `/partner-api/v1${path}`,
      setupRequest,
    });
    const requests = [
      ...Array.from({ length: 8 }, () => route('/usage')),
      ...Array.from({ length: 4 }, () => route('/properties')),
      ...[1, 2, 3, 4].map((id) => route(`/properties/${id}/pricing-signals?lookback_days=90`)),
      {
        method: 'GET',
        path: '/partner-api/v1/usage',
        headers: { authorization: `Bearer svc_${'x'.repeat(46)}` },
      },
      route('/properties', withMetricsKey),
      { method: 'GET', path: '/partner-api/v1/usage' },
      route('/properties', withKey, 'POST'),
      route('/webhooks'),
    ];
    const load = (limits: { amount: number } | { maxOverallRequests: number; duration: number }) =>
      autocannon({
        url: server?.runtime.activationBaseUrl ?? '',
        connections: 50,
        ...limits,
        requests: requests as never,
      });

    await load({ amount: 1_000 });
    const rssBefore = await server.rssMiB();
    const heapBefore = await server.heapAfterGc();
    const [result, activations, imported] = await Promise.all([
      load({ maxOverallRequests: REQUESTS, duration: SECONDS }),
      (async () => {
        const statuses: number[] = [];
        for (const link of links) statuses.push(await activate(link));
        return statuses;
      })(),
      fixtures('import', '1', '600', `load-${Date.now()}`),
    ]);
    const rssAfter = await server.rssMiB();
    const heapAfter = await server.heapAfterGc();
    const after = {
      seats: Number((await api('/usage', probeKey)).active_seats),
      reservations: Number(
        (
          (await api('/properties/1/pricing-signals?lookback_days=365', probeKey)).signals as {
            total_reservations: number;
          }
        ).total_reservations,
      ),
    };
    const statusCounts: Record<string, number> = Object.fromEntries(
      Object.entries(result.statusCodeStats as Record<string, { count?: number }>).map(([status, stats]) => [
        status,
        stats.count ?? 0,
      ]),
    );
    console.log(
      `load: ${result.requests.total} requests, ${result.requests.average} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, statuses ${JSON.stringify(statusCounts)}, RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MiB, heap after GC: server ${heapBefore.serverMiB} → ${heapAfter.serverMiB} MiB, ${heapBefore.instances} → ${heapAfter.instances} idle instances ${heapBefore.instancesMiB} → ${heapAfter.instancesMiB} MiB`,
    );

    const sent = result.requests.total;
    expect(sent, `only ${sent} requests fit in ${SECONDS} s: not a load`).toBeGreaterThanOrEqual(
      Math.min(REQUESTS, FEWEST_REQUESTS),
    );
    expect(result.errors).toBe(0);
    expect(Object.keys(statusCounts).filter((status) => Number(status) >= 500)).toEqual([]);
    expect(Number(statusCounts['200'])).toBeGreaterThan(0.7 * sent);
    for (const expected of ['401', '403', '404', '405'])
      expect(Number(statusCounts[expected])).toBeGreaterThan(0);
    expect(activations).toEqual(links.map(() => 303));
    expect(imported).toEqual({ published: 600, applied: 600 });
    expect(after.seats).toBe(before.seats + 2 * links.length);
    expect(after.reservations).toBe(before.reservations + 600);
    // What the server and each instance hold once garbage is collected. RSS grows too, while more
    // instances start and V8 lets each heap expand towards its Lambda-sized limit: not a leak.
    const perInstance = (heap: typeof heapBefore) => heap.instancesMiB / Math.max(1, heap.instances);
    expect(heapAfter.serverMiB - heapBefore.serverMiB).toBeLessThan(20);
    expect(perInstance(heapAfter) - perInstance(heapBefore)).toBeLessThan(5);
  }, 600_000);
});
