import type { PlatformEvent } from '../../core/contract/platform-events';
import { eventFingerprint } from '../../core/contract/platform-events';
import { eraseHost } from '../data/erasure';
import type { EventOutcome } from '../data/event-versions';
import { applyOptimistically, RefusedEventError } from '../data/event-versions';
import type { PropertyAnchor } from '../data/properties';
import { applyPropertyUpdate, getPropertyAnchor } from '../data/properties';
import { applyReservationChange } from '../data/reservations';
import { applySeatEvent } from '../data/seats';
import { endSponsorship } from '../data/sponsorships';

/**
 * The property an event names, unless it is unknown (refused) or erased (nothing to apply); as
 * remembered on a first attempt, read again on the next.
 */
async function onProperty(
  propertyId: number,
  fresh: boolean,
  apply: (anchor: PropertyAnchor) => Promise<EventOutcome>,
): Promise<EventOutcome> {
  const anchor = await getPropertyAnchor(propertyId, { remembered: !fresh });
  if (!anchor) throw new RefusedEventError(`no property ${propertyId}`);
  if (anchor.erasedAt !== undefined) return 'erased';
  return apply(anchor);
}

/**
 * Applies one of the platform's events (docs/design/events.md): to its entity, when its version is
 * greater than the one applied, in one transaction conditioned on what was read, read again and
 * retried when another writer got there first. Throws `RefusedEventError` for an event that can
 * never apply (an unknown id, a product outside the agreement, two events of one version that
 * disagree), and AWS's errors for what may work on a later delivery.
 */
export function applyPlatformEvent(
  event: PlatformEvent,
  nowMs: number,
  deadlineMs: number,
): Promise<EventOutcome> {
  const fingerprint = eventFingerprint(event);
  const nowIso = new Date(nowMs).toISOString();
  return applyOptimistically((fresh) => {
    switch (event.type) {
      case 'SeatActivated':
      case 'SeatDeactivated':
        return onProperty(event.detail.property_id, fresh, (anchor) =>
          applySeatEvent(event.type, event.detail, anchor, fingerprint, nowIso),
        );
      case 'PropertyUpdated':
        return onProperty(event.detail.property_id, fresh, (anchor) =>
          applyPropertyUpdate(event.detail, anchor, fingerprint),
        );
      case 'ReservationChanged':
        return onProperty(event.detail.property_id, fresh, (anchor) =>
          applyReservationChange(event.detail, anchor.propertyId, fingerprint, nowIso, fresh),
        );
      case 'SponsorshipEnded':
        return endSponsorship(event.detail, fingerprint, nowIso);
      case 'HostErasureRequested':
        return eraseHost(event.detail, nowIso, deadlineMs);
    }
  });
}
