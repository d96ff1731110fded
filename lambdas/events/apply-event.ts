import type { PlatformEvent } from '../../core/contract/platform-events';
import { eventFingerprint } from '../../core/contract/platform-events';
import { eraseHost } from '../data/erasure';
import type { EventOutcome } from '../data/event-versions';
import { applyOptimistically, publishedBeforeCreation, RefusedEventError } from '../data/event-versions';
import type { PropertyAnchor } from '../data/properties';
import { applyPropertyUpdate, getPropertyAnchor } from '../data/properties';
import type { ReservationResult } from '../data/reservations/apply';
import { applyReservationChange, applyReservationChanges } from '../data/reservations/apply';
import { applySeatEvent } from '../data/seats';
import { endSponsorship } from '../data/sponsorships';

/**
 * The property an event names, unless it is unknown (refused) or erased (nothing to apply: the
 * value of `erased`); as remembered on a first attempt, read again on the next.
 */
async function onProperty<T>(
  propertyId: number,
  fresh: boolean,
  apply: (anchor: PropertyAnchor) => Promise<T>,
  erased: () => T,
): Promise<T> {
  const anchor = await getPropertyAnchor(propertyId, { remembered: !fresh });
  if (!anchor) throw new RefusedEventError(`no property ${propertyId}`);
  if (anchor.erasedAt !== undefined) return erased();
  return apply(anchor);
}

/** `apply`, unless the event was published before the property existed (refused). */
function unlessEarlier<T>(
  event: PlatformEvent,
  apply: (anchor: PropertyAnchor) => Promise<T>,
): (anchor: PropertyAnchor) => Promise<T> {
  return (anchor) => {
    const refusal = publishedBeforeCreation(
      event.publishedAt,
      anchor.createdAt,
      `property ${anchor.propertyId}`,
    );
    if (refusal) throw refusal;
    return apply(anchor);
  };
}

const erased = (): EventOutcome => 'erased';

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
        return onProperty(
          event.detail.property_id,
          fresh,
          unlessEarlier(event, (anchor) =>
            applySeatEvent(event.type, event.detail, anchor, fingerprint, nowIso),
          ),
          erased,
        );
      case 'PropertyUpdated':
        return onProperty(
          event.detail.property_id,
          fresh,
          unlessEarlier(event, (anchor) => applyPropertyUpdate(event.detail, anchor, fingerprint)),
          erased,
        );
      case 'ReservationChanged':
        return onProperty(
          event.detail.property_id,
          fresh,
          unlessEarlier(event, (anchor) =>
            applyReservationChange(
              { detail: event.detail, fingerprint, ...(event.source ? { source: event.source } : {}) },
              anchor.propertyId,
              nowIso,
              fresh,
            ),
          ),
          erased,
        );
      case 'SponsorshipEnded':
        return endSponsorship(event.detail, fingerprint, event.publishedAt, nowIso);
      case 'HostErasureRequested':
        return eraseHost(event.detail, event.publishedAt, nowIso, deadlineMs);
    }
  });
}

/**
 * Applies several `ReservationChanged` events of one property together (`applyReservationChanges`:
 * shared transactions, one read of each reservation), with what each did or why it never can. An
 * unknown property refuses them all; an erased one applies none.
 */
export async function applyReservationEvents(
  events: readonly PlatformEvent<'ReservationChanged'>[],
  propertyId: number,
  nowMs: number,
): Promise<ReservationResult[]> {
  const named = events.map((event) => ({
    detail: event.detail,
    fingerprint: eventFingerprint(event),
    ...(event.source ? { source: event.source } : {}),
  }));
  const nowIso = new Date(nowMs).toISOString();
  try {
    return await applyOptimistically((fresh) =>
      onProperty(
        propertyId,
        fresh,
        async (anchor) => {
          // Events published before the property existed are refused; the others apply together.
          const refusals = events.map((event) =>
            publishedBeforeCreation(event.publishedAt, anchor.createdAt, `property ${propertyId}`),
          );
          const applied = await applyReservationChanges(
            named.filter((_, index) => !refusals[index]),
            anchor.propertyId,
            nowIso,
            fresh,
          );
          return refusals.map((refusal) => refusal ?? (applied.shift() as ReservationResult));
        },
        () => named.map(erased),
      ),
    );
  } catch (error) {
    if (error instanceof RefusedEventError) return named.map(() => error);
    throw error;
  }
}
