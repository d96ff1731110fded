import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { accessLogEntry, localAccessLog } from '../../emulator/access-log';
import type { TrafficReport } from '../../operations/traffic';
import { DEFAULT_TRAFFIC_DAYS, MAX_TRAFFIC_DAYS, trafficWindow, utcDate } from '../../operations/traffic';
import { admin } from '../support/cli';
import { extraKeysFor } from '../support/keys';
import { apiGet, approvedPartner } from '../support/partners';

const total = (report: TrafficReport) => report.days.reduce((sum, day) => sum + day.requests, 0);

/**
 * The traffic report of a partner once the server has written `expected` of its requests: the
 * server appends each access-log line after it answers, so the last lines may lag the responses.
 */
async function trafficOnceWritten(slug: string, expected: number): Promise<TrafficReport> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { code, stdout, stderr } = await admin('traffic', '--partner', slug, '--json');
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as TrafficReport;
    if (total(report) >= expected || Date.now() > deadline) return report;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('traffic per partner, from the local access log', () => {
  it("counts each request of the partner's keys per UTC day, key and status; 401s and other partners are not counted", async () => {
    const partner = await approvedPartner({ revenue: true });
    // A second key of the same partner without revenue:read (403 on /properties).
    const [metricsKey = ''] = await extraKeysFor(partner.id, 1, ['metrics:read']);
    const metricsPrefix = metricsKey.slice(0, 12);
    const other = await approvedPartner();
    const today = utcDate(Date.now());
    const statuses = async (path: string, key: string | undefined, times: number) => {
      const answered: number[] = [];
      for (let index = 0; index < times; index += 1) answered.push((await apiGet(path, key)).status);
      return answered;
    };

    // Counted: answered by a handler, or refused for the key after the authorizer let it through.
    expect(await statuses('/usage', partner.key, 3)).toEqual([200, 200, 200]);
    expect(await statuses('/properties/987654321/pricing-signals', partner.key, 2)).toEqual([404, 404]);
    expect(await statuses('/usage', metricsKey, 1)).toEqual([200]);
    expect(await statuses('/properties', metricsKey, 2)).toEqual([403, 403]);
    // Not counted: no key, a key the authorizer refuses (both 401: no partner in the access log),
    // a path no route matches (API Gateway answers before the authorizer), another partner.
    expect(await statuses('/usage', undefined, 2)).toEqual([401, 401]);
    const altered = `${partner.key.slice(0, -1)}${partner.key.endsWith('x') ? 'y' : 'x'}`;
    expect(await statuses('/usage', altered, 1)).toEqual([401]);
    expect((await statuses('/nothing-here', partner.key, 1))[0]).not.toBe(200);
    expect(await statuses('/usage', other.key, 2)).toEqual([200, 200]);

    const report = await trafficOnceWritten(partner.slug, 8);
    const otherReport = await trafficOnceWritten(other.slug, 2);

    expect(utcDate(Date.now()), 'the test ran across UTC midnight: run it again').toBe(today);
    expect(report).toEqual({
      days: [
        { date: today, key_prefix: partner.keyPrefix, requests: 5, status: { '200': 3, '404': 2 } },
        { date: today, key_prefix: metricsPrefix, requests: 3, status: { '200': 1, '403': 2 } },
      ].sort((a, b) => (a.key_prefix < b.key_prefix ? -1 : 1)),
    });
    expect(otherReport).toEqual({
      days: [{ date: today, key_prefix: other.keyPrefix, requests: 2, status: { '200': 2 } }],
    });
  });

  it('counts the requests the rate limit refuses (429) for their key', async () => {
    const partner = await approvedPartner();
    const answered: number[] = [];
    // 120 requests per rolling 60 s per key: ten batches of 12 use them up, the 121st is refused.
    for (let batch = 0; batch < 10; batch += 1)
      answered.push(
        ...(await Promise.all(Array.from({ length: 12 }, () => apiGet('/usage', partner.key)))).map(
          (response) => response.status,
        ),
      );
    answered.push((await apiGet('/usage', partner.key)).status);

    const report = await trafficOnceWritten(partner.slug, 121);

    expect(answered.filter((status) => status === 200)).toHaveLength(120);
    expect(answered.at(-1)).toBe(429);
    expect(report.days).toEqual([
      {
        date: utcDate(Date.now()),
        key_prefix: partner.keyPrefix,
        requests: 121,
        status: { '200': 120, '429': 1 },
      },
    ]);
  });

  it('prints a table without --json, and says where the numbers come from', async () => {
    const partner = await approvedPartner();
    const token = 'TOKEN-THAT-MUST-NOT-BE-LOGGED';
    expect((await apiGet(`/usage?secret=${token}`, partner.key)).status).toBe(400);
    expect((await apiGet('/usage', partner.key)).status).toBe(200);
    await trafficOnceWritten(partner.slug, 2);
    // Paths only, as deployed: a query string may carry a token.
    expect(await readFile(join(inject('localDirectory'), 'access-log.jsonl'), 'utf8')).not.toContain(token);

    const { code, stdout, stderr } = await admin('traffic', '--partner', partner.slug, '--days', '1');

    expect(code).toBe(0);
    expect(stdout.split('\n')).toEqual([
      'date        key prefix    requests  200  400',
      `${utcDate(Date.now())}  ${partner.keyPrefix}         2    1    1`,
    ]);
    expect(stderr).toContain(`Traffic of "${partner.slug}" (partner ${partner.id})`);
    expect(stderr).toContain(join(inject('localDirectory'), 'access-log.jsonl'));
  });

  it('says so for a partner without traffic, and refuses an unknown slug and a bad --days', async () => {
    const quiet = await approvedPartner();

    const none = await admin('traffic', '--partner', quiet.slug);
    const unknown = await admin('traffic', '--partner', 'no-such-partner', '--json');
    const tooMany = await admin('traffic', '--partner', quiet.slug, '--days', String(MAX_TRAFFIC_DAYS + 1));
    const notNumber = await admin('traffic', '--partner', quiet.slug, '--days', 'week');
    const missing = await admin('traffic');
    const help = await admin('traffic', '--help');

    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toMatch(
      /^No request with a key of "test-[0-9a-f]+" from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d UTC\.$/,
    );
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('No partner with slug "no-such-partner"');
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain(
      `--days must be an integer from 1 to ${MAX_TRAFFIC_DAYS}; got "${MAX_TRAFFIC_DAYS + 1}"`,
    );
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain(`--days must be an integer from 1 to ${MAX_TRAFFIC_DAYS}; got "week"`);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--partner <slug>' not specified");
    expect(help.code).toBe(0);
    const helpText = help.stdout.replace(/\s+/g, ' ');
    expect(helpText).toContain(`--days <n> UTC days to report, today included: 1 to ${MAX_TRAFFIC_DAYS} (`);
    expect(helpText).toContain(`(default: "${DEFAULT_TRAFFIC_DAYS}")`);
  });

  it('reads the local file line by line, skipping lines that are not entries', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'partner-api-traffic-'));
    try {
      const now = Date.parse('2026-05-07T12:00:00Z');
      const entry = (at: string, status: number, partnerId?: string, keyPrefix?: string) =>
        JSON.stringify(
          accessLogEntry({
            startedAtMs: Date.parse(at),
            httpMethod: 'GET',
            path: '/partner-api/v1/usage',
            latencyMs: 3,
            status,
            ...(partnerId ? { partnerId } : {}),
            ...(keyPrefix ? { keyPrefix } : {}),
          }),
        );
      const file = join(directory, 'access-log.jsonl');
      await writeFile(
        file,
        [
          entry('2026-05-06T23:59:59Z', 200, '7', 'svc_AbCdEfGh'),
          'not json',
          '{"partnerId":"7","keyPrefix":"svc_AbCdEfGh","status":200}',
          entry('2026-05-07T00:00:00Z', 429, '7', 'svc_AbCdEfGh'),
          entry('2026-05-07T00:00:01Z', 401),
          entry('2026-05-07T00:00:02Z', 200, '8', 'svc_ZzZzZzZz'),
          entry('2026-04-01T00:00:00Z', 200, '7', 'svc_AbCdEfGh'),
          entry('2026-05-07T01:00:00Z', 200, '7', 'svc_AbCdEfGh').slice(0, 40),
        ].join('\n'),
      );

      const { counts } = await localAccessLog(file).counts(7, trafficWindow(2, now));

      expect(counts).toEqual([
        { date: '2026-05-06', keyPrefix: 'svc_AbCdEfGh', status: 200, requests: 1 },
        { date: '2026-05-07', keyPrefix: 'svc_AbCdEfGh', status: 429, requests: 1 },
      ]);
      expect(await localAccessLog(join(directory, 'missing.jsonl')).counts(7, trafficWindow(2, now))).toEqual(
        {
          counts: [],
        },
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
