import type { AccessLogCount, TrafficWindow } from './access-log-reader';
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

interface TrafficDay {
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

/** A partner's traffic of the last `days` UTC days (today included), from the stage's access log. */
export async function partnerTraffic(
  target: OperatorTarget,
  input: { slug: string; days: number },
  nowMs: number,
): Promise<{
  report: TrafficReport;
  partnerId: number;
  window: TrafficWindow;
  source: string;
  bytesScanned?: number;
}> {
  const reader = target.accessLog;
  if (!reader) throw new OperatorError(`Stage ${target.stage} has no access log this command can read.`);
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
