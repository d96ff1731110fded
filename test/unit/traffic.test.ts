import {
  CloudWatchLogsClient,
  GetQueryResultsCommand,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { cloudWatchAccessLog, INSIGHTS_ROW_LIMIT, trafficQuery } from '../../cli/aws-operator-services';
import { UsageError } from '../../cli/command';
import { trafficDays, trafficTable } from '../../cli/commands/traffic';
import { accessLogEntry, parseAccessLogLine, requestTime, requestTimeMs } from '../../emulator/access-log';
import { OperatorError } from '../../operations/operator-error';
import type { OperatorTarget } from '../../operations/target';
import { MAX_TRAFFIC_DAYS, partnerTraffic, trafficReport, trafficWindow } from '../../operations/traffic';

const logs = mockClient(CloudWatchLogsClient);
const client = () => new CloudWatchLogsClient({ region: 'eu-west-1' });
const LOG_GROUP = 'PartnerApi-sandbox-PartnerApiRestApiAccessLogs1D6023AF-AbCdEf';
const NOW = Date.parse('2026-05-07T15:30:00Z');
const WINDOW = trafficWindow(7, NOW);

/** A result row as GetQueryResults returns it (with Logs Insights' own @ptr-less stats fields). */
const row = (day: string, keyPrefix: string, status: string, requests: number) => [
  { field: 'day', value: `${day} 00:00:00.000` },
  { field: 'keyPrefix', value: keyPrefix },
  { field: 'status', value: status },
  { field: 'requests', value: String(requests) },
];

beforeEach(() => logs.reset());

describe('trafficQuery', () => {
  it("filters on the partner's id and a present key prefix, and counts per UTC day, key and status", () => {
    const query = trafficQuery(12);

    expect(query).toBe(
      'filter partnerId = "12" and ispresent(keyPrefix) and keyPrefix != "-" and keyPrefix != "" | stats count(*) as requests by datefloor(@timestamp, 1d) as day, keyPrefix, status',
    );
  });

  it('takes only a positive integer id: nothing can break out of the quotes', () => {
    for (const id of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])
      expect(() => trafficQuery(id)).toThrow();
  });
});

describe('cloudWatchAccessLog', () => {
  it('queries the window in epoch seconds, polls until Complete and returns the rows as counts', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-1' });
    logs
      .on(GetQueryResultsCommand)
      .resolvesOnce({ status: 'Scheduled' })
      .resolvesOnce({ status: 'Running', results: [row('2026-05-06', 'svc_AbCdEfGh', '200', 1)] })
      .resolves({
        status: 'Complete',
        statistics: { bytesScanned: 2_500_000 },
        results: [
          row('2026-05-06', 'svc_AbCdEfGh', '200', 40),
          row('2026-05-06', 'svc_AbCdEfGh', '404', 2),
          row('2026-05-07', 'svc_AbCdEfGh', '429', 3),
          row('2026-05-05', 'svc_ZyXwVuTs', '403', 1),
        ],
      });

    const result = await cloudWatchAccessLog(LOG_GROUP, client(), { intervalMs: 1 }).counts(12, WINDOW);

    const [start] = logs.commandCalls(StartQueryCommand);
    expect(start?.args[0].input).toEqual({
      logGroupName: LOG_GROUP,
      startTime: Date.parse('2026-05-01T00:00:00Z') / 1000,
      endTime: NOW / 1000,
      queryString: trafficQuery(12),
      limit: INSIGHTS_ROW_LIMIT,
    });
    expect(start?.args[0].input.queryString).toContain('filter partnerId = "12"');
    expect(logs.commandCalls(GetQueryResultsCommand)).toHaveLength(3);
    expect(logs.commandCalls(GetQueryResultsCommand)[0]?.args[0].input).toEqual({ queryId: 'q-1' });
    expect(logs.commandCalls(StopQueryCommand)).toHaveLength(0);
    expect(result.bytesScanned).toBe(2_500_000);
    expect(trafficReport(result.counts)).toEqual({
      days: [
        { date: '2026-05-05', key_prefix: 'svc_ZyXwVuTs', requests: 1, status: { '403': 1 } },
        { date: '2026-05-06', key_prefix: 'svc_AbCdEfGh', requests: 42, status: { '200': 40, '404': 2 } },
        { date: '2026-05-07', key_prefix: 'svc_AbCdEfGh', requests: 3, status: { '429': 3 } },
      ],
    });
  });

  it('stops a query that does not complete in time and says so', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-slow' });
    logs.on(GetQueryResultsCommand).resolves({ status: 'Running' });
    logs.on(StopQueryCommand).resolves({ success: true });

    const attempt = cloudWatchAccessLog(LOG_GROUP, client(), { intervalMs: 5, maxWaitMs: 30 }).counts(
      12,
      WINDOW,
    );

    await expect(attempt).rejects.toThrow(OperatorError);
    await expect(attempt).rejects.toThrow(
      /did not complete within 0.03 s \(status Running\), so it was stopped/,
    );
    expect(logs.commandCalls(StopQueryCommand).map((call) => call.args[0].input)).toEqual([
      { queryId: 'q-slow' },
    ]);
  });

  it('reports the timeout even when StopQuery fails (the query ended meanwhile)', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-slow' });
    logs.on(GetQueryResultsCommand).resolves({ status: 'Scheduled' });
    logs
      .on(StopQueryCommand)
      .rejects(Object.assign(new Error('Query is not running'), { name: 'InvalidParameterException' }));

    await expect(
      cloudWatchAccessLog(LOG_GROUP, client(), { intervalMs: 5, maxWaitMs: 20 }).counts(12, WINDOW),
    ).rejects.toThrow(/was stopped/);
  });

  it('refuses a failed query and a result at the row limit (the counts would be incomplete)', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-2' });
    logs.on(GetQueryResultsCommand).resolvesOnce({ status: 'Failed' });
    await expect(
      cloudWatchAccessLog(LOG_GROUP, client(), { intervalMs: 1 }).counts(12, WINDOW),
    ).rejects.toThrow(/ended Failed/);

    logs.on(GetQueryResultsCommand).resolves({
      status: 'Complete',
      results: Array.from({ length: INSIGHTS_ROW_LIMIT }, () => row('2026-05-06', 'svc_AbCdEfGh', '200', 1)),
    });
    await expect(
      cloudWatchAccessLog(LOG_GROUP, client(), { intervalMs: 1 }).counts(12, WINDOW),
    ).rejects.toThrow(/fewer --days/);
    expect(logs.commandCalls(StopQueryCommand)).toHaveLength(0);
  });

  it('skips rows that are not counts of a key', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-3' });
    logs.on(GetQueryResultsCommand).resolves({
      status: 'Complete',
      results: [
        row('2026-05-06', '-', '401', 5),
        row('not a day', 'svc_AbCdEfGh', '200', 1),
        row('2026-05-06', 'svc_AbCdEfGh', 'x', 1),
        row('2026-05-06', 'svc_AbCdEfGh', '200', 7),
      ],
    });

    const { counts } = await cloudWatchAccessLog(LOG_GROUP, client(), { intervalMs: 1 }).counts(12, WINDOW);

    expect(counts).toEqual([{ date: '2026-05-06', keyPrefix: 'svc_AbCdEfGh', status: 200, requests: 7 }]);
  });
});

describe('the access log of a stage', () => {
  it("is the deployed target's Logs Insights reader", () => {
    const reader = cloudWatchAccessLog(LOG_GROUP, client());

    expect(reader.description).toBe(`CloudWatch Logs Insights over ${LOG_GROUP}`);
  });

  it('says so when a target has no access log to read, before reading anything', async () => {
    const noLog = { stage: 'production' } as unknown as OperatorTarget;

    await expect(partnerTraffic(noLog, { slug: 'acme', days: 1 }, Date.now())).rejects.toThrow(
      'Stage production has no access log this command can read.',
    );
  });
});

describe('traffic report', () => {
  it('sums per day and key, sorted by date then key prefix, statuses in order', () => {
    const report = trafficReport([
      { date: '2026-05-02', keyPrefix: 'svc_Bbbbbbbb', status: 404, requests: 1 },
      { date: '2026-05-01', keyPrefix: 'svc_Cccccccc', status: 200, requests: 2 },
      { date: '2026-05-02', keyPrefix: 'svc_Aaaaaaaa', status: 429, requests: 3 },
      { date: '2026-05-02', keyPrefix: 'svc_Aaaaaaaa', status: 200, requests: 4 },
      { date: '2026-05-02', keyPrefix: 'svc_Aaaaaaaa', status: 200, requests: 1 },
    ]);

    expect(report.days.map((day) => `${day.date} ${day.key_prefix}`)).toEqual([
      '2026-05-01 svc_Cccccccc',
      '2026-05-02 svc_Aaaaaaaa',
      '2026-05-02 svc_Bbbbbbbb',
    ]);
    expect(report.days[1]).toEqual({
      date: '2026-05-02',
      key_prefix: 'svc_Aaaaaaaa',
      requests: 8,
      status: { '200': 5, '429': 3 },
    });
    expect(Object.keys(report.days[1]?.status ?? {})).toEqual(['200', '429']);
    expect(trafficTable(report)).toEqual([
      'date        key prefix    requests  200  404  429',
      '2026-05-01  svc_Cccccccc         2    2    0    0',
      '2026-05-02  svc_Aaaaaaaa         8    5    0    3',
      '2026-05-02  svc_Bbbbbbbb         1    0    1    0',
    ]);
  });

  it('covers the last N UTC days, today included', () => {
    expect(trafficWindow(1, NOW)).toEqual({ startMs: Date.parse('2026-05-07T00:00:00Z'), endMs: NOW });
    expect(trafficWindow(7, NOW).startMs).toBe(Date.parse('2026-05-01T00:00:00Z'));
  });

  it(`accepts --days from 1 to ${MAX_TRAFFIC_DAYS} only`, () => {
    expect(trafficDays('7')).toBe(7);
    expect(trafficDays(String(MAX_TRAFFIC_DAYS))).toBe(MAX_TRAFFIC_DAYS);
    for (const bad of ['0', '-3', String(MAX_TRAFFIC_DAYS + 1), '1.5', 'week', '', undefined])
      expect(() => trafficDays(bad), String(bad)).toThrow(UsageError);
    expect(() => trafficDays(String(MAX_TRAFFIC_DAYS + 1))).toThrow(
      `--days must be an integer from 1 to ${MAX_TRAFFIC_DAYS}`,
    );
  });
});

describe('local access-log lines', () => {
  it('write the $context.requestTime format, and "-" where API Gateway would have no value', () => {
    const entry = accessLogEntry({
      startedAtMs: Date.parse('2026-05-07T03:04:05.678Z'),
      httpMethod: 'GET',
      path: '/partner-api/v1/nowhere',
      latencyMs: 1.4,
      status: 403,
      responseType: 'MISSING_AUTHENTICATION_TOKEN',
    });

    expect(entry).toMatchObject({
      requestTime: '07/May/2026:03:04:05 +0000',
      partnerId: '-',
      keyPrefix: '-',
      resourcePath: '-',
      responseLatency: '1',
      status: 403,
    });
    expect(requestTime(Date.parse('2026-12-31T23:59:59Z'))).toBe('31/Dec/2026:23:59:59 +0000');
    expect(requestTimeMs('07/May/2026:05:04:05 +0200')).toBe(Date.parse('2026-05-07T03:04:05Z'));
    expect(requestTimeMs('2026-05-07T03:04:05Z')).toBeUndefined();
  });

  it('parse back, and anything else is skipped', () => {
    const line = JSON.stringify(
      accessLogEntry({ startedAtMs: NOW, httpMethod: 'GET', path: '/x', latencyMs: 1, status: 200 }),
    );

    expect(parseAccessLogLine(line)?.status).toBe(200);
    for (const bad of ['', '{', 'null', '[]', '{"status":"200"}', line.slice(0, -5)])
      expect(parseAccessLogLine(bad), bad).toBeUndefined();
  });
});
