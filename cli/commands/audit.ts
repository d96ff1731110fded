import type { Command } from 'commander';
import { quoted } from '../../core/domain/text';
import { AUDIT_ACTIONS, isAuditAction } from '../../lambdas/data/audit';
import { listAudit } from '../../operations/audit';
import type { Define } from '../command';
import { commandGroup, minuteOf, table, text, UsageError } from '../command';
import { integerInRange, isoTime, partnerSlug } from '../inputs';

/** What an event names beyond who did what, shown in the last column of `audit list`. */
const EVENT_DETAILS = ['key_prefix', 'host_id', 'property_id', 'link_nonce', 'request_id'] as const;

/** A detail as the table shows it: lists comma-separated, text with spaces in quotes (a reason). */
function detailValue(value: string | number | readonly string[]): string {
  if (typeof value === 'object') return value.join(',');
  return typeof value === 'string' && /[\s"]/.test(value) ? JSON.stringify(value) : String(value);
}

/** `audit list`: what `operations/audit.ts` reads, as a command. */
export function auditCommands(program: Command, define: Define): void {
  const audit = commandGroup(program, 'audit', 'The audit trail (who did what, and when)');
  define(audit, 'list', {
    summary: 'Audit events, newest first (operator actions, reveals, activations)',
    examples: [
      'audit list --partner acme --limit 3 --json',
      'audit list --action key.revealed --since 2026-11-01',
    ],
    action: (options) => {
      const action = typeof options.action === 'string' ? options.action : undefined;
      if (action !== undefined && !isAuditAction(action))
        throw new UsageError(
          `--action must be one of ${AUDIT_ACTIONS.join(', ')}; got "${quoted(action, 60)}".`,
        );
      const query = {
        partner: typeof options.partner === 'string' ? partnerSlug(options.partner, '--partner') : undefined,
        action,
        since: typeof options.since === 'string' ? isoTime('--since', options.since) : undefined,
        limit: integerInRange('--limit', text(options, 'limit'), 1, 1_000),
      };
      return async () => {
        const result = await listAudit(query);
        return {
          json: result,
          text:
            result.events.length === 0
              ? ['No events.']
              : table(
                  ['AT', 'ACTION', 'PARTNER', 'ACTOR', 'DETAILS'],
                  result.events.map((event) => [
                    minuteOf(event.at),
                    event.action,
                    event.partner ?? '-',
                    event.actor,
                    [
                      ...EVENT_DETAILS.flatMap((field) =>
                        field in event ? [`${field}=${String(event[field as keyof typeof event])}`] : [],
                      ),
                      ...Object.entries(event.details ?? {}).map(
                        ([name, value]) => `${name}=${detailValue(value)}`,
                      ),
                    ].join('  '),
                  ]),
                ),
        };
      };
    },
  })
    .option('--partner <slug>', "only this partner's events")
    .option('--action <action>', `only this action: ${AUDIT_ACTIONS.join(', ')}`)
    .option('--since <time>', 'only events at or after this ISO 8601 date or time (UTC)')
    .option('--limit <count>', 'at most this many events (1-1000)', '50');
}
