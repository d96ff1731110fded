import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { isKeyPrefix } from '../../lambdas/domain/api-key';
import { accessLogPath, NO_VALUE, parseAccessLogLine, requestTimeMs } from '../local/access-log';
import { localDirectory } from '../local/runtime';
import { isDeployedStage, STACK_OUTPUTS, stackName } from '../stage-config';
import { OperatorError } from './operator-error';
import { requirePartner } from './partner-lookup';
import type { OperatorTarget } from './target';

/**
 * Requests per partner, UTC day and key, by status, counted from the API's access log: the
 * deployed stage's log group through CloudWatch Logs Insights, the local server's file locally.
 * The access log already carries `partnerId`, `keyPrefix` and `status` of every request the
 * authorizer let through, so counting costs nothing on the request path (a counter written per
 * request would cost a write each). Counted: every request that reached a handler or that was
 * refused for its key after the authorizer allowed it (403 scope, 429 rate limit, 502). Not
 * counted: requests without a usable key (401: no partner), and whatever never reached the
 * authorizer (WAF, the stage throttle).
 */

export const DEFAULT_TRAFFIC_DAYS = 7;
/**
 * At most 90 days: a Logs Insights query is billed by the bytes it scans, and each extra day
 * scans a whole day of the stage's access log, of every partner; sandbox keeps its logs 30 days.
 */
export const MAX_TRAFFIC_DAYS = 90;

/** The time range of a report: from UTC midnight `days - 1` days ago to now (both included). */
export interface TrafficWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/** Requests of one UTC day, key prefix and status. */
export interface AccessLogCount {
  readonly date: string;
  readonly keyPrefix: string;
  readonly status: number;
  readonly requests: number;
}

export interface AccessLogCounts {
  readonly counts: readonly AccessLogCount[];
  /** Bytes the query scanned (billed per GB in CloudWatch Logs Insights). */
  readonly bytesScanned?: number;
}

/** Where a stage's access log is read. */
export interface AccessLogReader {
  /** Said to the operator on stderr: where the numbers come from. */
  readonly description: string;
  counts(partnerId: number, window: TrafficWindow): Promise<AccessLogCounts>;
}

/** A target that can read its access log (the deployed target, when its stack has the output). */
export interface WithAccessLog {
  readonly accessLog?: AccessLogReader;
}

export interface TrafficDay {
  readonly date: string;
  readonly key_prefix: string;
  readonly requests: number;
  /** Requests by HTTP status ("200", "404", …). */
  readonly status: Record<string, number>;
}

export interface TrafficReport {
  readonly days: TrafficDay[];
}

const DAY_MS = 86_400_000;

export function trafficWindow(days: number, nowMs: number): TrafficWindow {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return { startMs: today - (days - 1) * DAY_MS, endMs: nowMs };
}

export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Counts summed per (date, key prefix), sorted by date then key prefix. */
export function trafficReport(counts: readonly AccessLogCount[]): TrafficReport {
  const rows = new Map<
    string,
    { date: string; key_prefix: string; requests: number; status: Map<number, number> }
  >();
  for (const count of counts) {
    if (count.requests <= 0) continue;
    const id = `${count.date} ${count.keyPrefix}`;
    const row = rows.get(id) ?? {
      date: count.date,
      key_prefix: count.keyPrefix,
      requests: 0,
      status: new Map(),
    };
    row.requests += count.requests;
    row.status.set(count.status, (row.status.get(count.status) ?? 0) + count.requests);
    rows.set(id, row);
  }
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    days: [...rows.values()]
      .sort((a, b) => compare(a.date, b.date) || compare(a.key_prefix, b.key_prefix))
      .map((row) => ({
        date: row.date,
        key_prefix: row.key_prefix,
        requests: row.requests,
        status: Object.fromEntries(
          [...row.status.entries()].sort(([a], [b]) => a - b).map(([status, n]) => [String(status), n]),
        ),
      })),
  };
}

/**
 * The local server's access log (`<local directory>/access-log.jsonl`), read line by line: lines
 * that are not entries (torn by a crash, written by hand) are skipped, as are entries without a
 * partner and key (a 401, a page) or outside the window.
 */
export function localAccessLog(file: string): AccessLogReader {
  return {
    description: `the local access log ${file}`,
    async counts(partnerId, window) {
      try {
        await stat(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { counts: [] };
        throw error;
      }
      const tally = new Map<string, AccessLogCount>();
      const partner = String(partnerId);
      const lines = createInterface({
        input: createReadStream(file, 'utf8'),
        crlfDelay: Number.POSITIVE_INFINITY,
      });
      for await (const line of lines) {
        const entry = parseAccessLogLine(line);
        if (!entry || entry.partnerId !== partner) continue;
        if (entry.keyPrefix === NO_VALUE || !isKeyPrefix(entry.keyPrefix)) continue;
        const at = requestTimeMs(entry.requestTime);
        if (at === undefined || at < window.startMs || at > window.endMs) continue;
        const date = utcDate(at);
        const id = `${date} ${entry.keyPrefix} ${entry.status}`;
        const count = tally.get(id);
        tally.set(id, {
          date,
          keyPrefix: entry.keyPrefix,
          status: entry.status,
          requests: (count?.requests ?? 0) + 1,
        });
      }
      return { counts: [...tally.values()] };
    },
  };
}

/** Where the target's stage keeps its access log. */
export function accessLogOf(target: OperatorTarget & WithAccessLog): AccessLogReader {
  if (target.accessLog) return target.accessLog;
  if (target.stage === 'local') return localAccessLog(accessLogPath(localDirectory()));
  const stack = isDeployedStage(target.stage) ? stackName(target.stage) : `of stage ${target.stage}`;
  throw new OperatorError(
    `Stack ${stack} has no output ${STACK_OUTPUTS.accessLogGroupName}: it was deployed from an older checkout. Deploy this one with "npx cdk deploy ${stack}".`,
  );
}

/** A partner's traffic of the last `days` UTC days (today included), from the stage's access log. */
export async function partnerTraffic(
  target: OperatorTarget & WithAccessLog,
  input: { slug: string; days: number },
  nowMs: number,
): Promise<{
  report: TrafficReport;
  partnerId: number;
  window: TrafficWindow;
  source: string;
  bytesScanned?: number;
}> {
  const reader = accessLogOf(target);
  const partner = await requirePartner(input.slug);
  const window = trafficWindow(input.days, nowMs);
  const { counts, bytesScanned } = await reader.counts(partner.id, window);
  return {
    report: trafficReport(counts),
    partnerId: partner.id,
    window,
    source: reader.description,
    ...(bytesScanned === undefined ? {} : { bytesScanned }),
  };
}
