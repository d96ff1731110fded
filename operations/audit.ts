import type { AuditAction, AuditEvent } from '../lambdas/data/audit';
import { auditEventItem, listAuditEvents, recordAuditEvent } from '../lambdas/data/audit';
import type { TransactItem } from '../lambdas/data/db';
import { listPartners } from '../lambdas/data/partners';
import { requirePartner } from './partner-lookup';
import type { OperatorTarget } from './target';

type EventFields = Omit<AuditEvent, 'at' | 'actor' | 'action'>;

/** An event of an operator command: the target's actor, now. */
export function operatorEvent(
  target: Pick<OperatorTarget, 'actor'>,
  action: AuditAction,
  fields: EventFields,
  nowMs: number,
): AuditEvent {
  return { at: new Date(nowMs).toISOString(), actor: target.actor, action, ...fields };
}

/** The put of an operator event, for the transaction of the action it records. */
export const operatorEventItem = (...args: Parameters<typeof operatorEvent>): TransactItem =>
  auditEventItem(operatorEvent(...args));

/**
 * Records an operator event after an action that is not a transaction (a revocation, an import).
 * The action has happened and its result must still reach the operator: a failure here is a
 * warning on stderr with the event, never an error that would hide the result.
 */
export async function recordOperatorEvent(...args: Parameters<typeof operatorEvent>): Promise<void> {
  const event = operatorEvent(...args);
  try {
    await recordAuditEvent(event);
  } catch (error) {
    process.stderr.write(
      `Warning: the audit event ${event.action} was not recorded (${(error as Error).name}); the action itself is done. Event: ${JSON.stringify(event)}\n`,
    );
  }
}

/** `audit list`: newest first, with each event's partner named by slug, in the CLI's snake case. */
export async function listAudit(query: {
  partner?: string;
  action?: AuditAction;
  since?: string;
  limit: number;
}) {
  const partnerId = query.partner === undefined ? undefined : (await requirePartner(query.partner)).id;
  const [events, partners] = await Promise.all([
    listAuditEvents({ partnerId, action: query.action, since: query.since, limit: query.limit }),
    listPartners(),
  ]);
  const slugs = new Map(partners.map((partner) => [partner.id, partner.slug]));
  return {
    events: events.map((event) => ({
      at: event.at,
      actor: event.actor,
      action: event.action,
      partner: event.partnerId === undefined ? null : (slugs.get(event.partnerId) ?? String(event.partnerId)),
      ...(event.keyPrefix ? { key_prefix: event.keyPrefix } : {}),
      ...(event.hostId !== undefined ? { host_id: event.hostId } : {}),
      ...(event.propertyId !== undefined ? { property_id: event.propertyId } : {}),
      ...(event.linkNonce ? { link_nonce: event.linkNonce } : {}),
      ...(event.requestId ? { request_id: event.requestId } : {}),
      ...(event.details ? { details: event.details } : {}),
    })),
  };
}
