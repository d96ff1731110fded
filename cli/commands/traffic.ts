import type { Command } from 'commander';
import type { TrafficReport } from '../../operations/traffic';
import { DEFAULT_TRAFFIC_DAYS, MAX_TRAFFIC_DAYS, partnerTraffic, utcDate } from '../../operations/traffic';
import type { Define } from '../command';
import { text } from '../command';
import { integerInRange, partnerSlug } from '../inputs';

/** `--days`: a whole number of days within the bound, checked as the other commands check numbers. */
export function trafficDays(value: unknown): number {
  return integerInRange('--days', typeof value === 'string' ? value : '', 1, MAX_TRAFFIC_DAYS);
}

/** The report as a table: one line per day and key, one column per status seen. */
export function trafficTable(report: TrafficReport): string[] {
  const statuses = [...new Set(report.days.flatMap((day) => Object.keys(day.status)))].sort(
    (a, b) => Number(a) - Number(b),
  );
  const requestsWidth = Math.max('requests'.length, ...report.days.map((day) => String(day.requests).length));
  const widths = statuses.map((status) =>
    Math.max(status.length, ...report.days.map((day) => String(day.status[status] ?? 0).length)),
  );
  const line = (date: string, prefix: string, requests: string, counts: string[]) =>
    [
      date.padEnd(10),
      prefix.padEnd(12),
      requests.padStart(requestsWidth),
      ...counts.map((count, index) => count.padStart(widths[index] ?? 0)),
    ].join('  ');
  return [
    line('date', 'key prefix', 'requests', statuses),
    ...report.days.map((day) =>
      line(
        day.date,
        day.key_prefix,
        String(day.requests),
        statuses.map((status) => String(day.status[status] ?? 0)),
      ),
    ),
  ];
}

/** `traffic`: what `operations/traffic.ts` reports, as a command. */
export function trafficCommands(program: Command, define: Define): void {
  define(program, 'traffic', {
    summary:
      "A partner's requests per UTC day and key, by HTTP status, from the API access log (401s carry no key: not counted)",
    examples: ['traffic --partner acme --json', '--stage production traffic --partner acme --days 30'],
    action: (options) => {
      const slug = partnerSlug(text(options, 'partner'), '--partner');
      const days = trafficDays(options.days);
      return async (target, io) => {
        const traffic = await partnerTraffic(target, { slug, days }, Date.now());
        const range = `${utcDate(traffic.window.startMs)} to ${utcDate(traffic.window.endMs)} UTC`;
        const scanned =
          traffic.bytesScanned === undefined
            ? ''
            : `; scanned ${(traffic.bytesScanned / 1_000_000).toFixed(1)} MB (Logs Insights bills per GB scanned)`;
        const freshness =
          target.stage === 'local'
            ? ''
            : '; access logs reach CloudWatch Logs seconds to minutes after a request';
        io.err(
          `Traffic of "${slug}" (partner ${traffic.partnerId}), ${range}, from ${traffic.source}${scanned}${freshness}.`,
        );
        const { report } = traffic;
        return {
          json: report,
          text:
            report.days.length === 0
              ? [`No request with a key of "${slug}" from ${range}.`]
              : trafficTable(report),
        };
      };
    },
  })
    .requiredOption('--partner <slug>', 'the partner')
    .option(
      '--days <n>',
      `UTC days to report, today included: 1 to ${MAX_TRAFFIC_DAYS} (on a deployed stage each query is billed per GB of access log scanned, every partner's, a whole day per day asked for)`,
      String(DEFAULT_TRAFFIC_DAYS),
    );
}
