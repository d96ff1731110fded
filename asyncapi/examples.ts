import type { PlatformEvent, PlatformEventType } from '../core/contract/platform-events';

/**
 * One example of each of the platform's events, about the demo partner `npm start` seeds (partner
 * 1, its hosts 1-3 and properties 1-5): the AsyncAPI document's examples, and the lines of
 * `docs/examples/events.jsonl`, which `npm run admin -- events publish` sends as written (the
 * integration suite does, and checks what each changes). Every example is checked against the
 * contract by `test/unit/platform-events.test.ts`.
 */
export const EVENT_EXAMPLES = {
  SeatActivated: {
    type: 'SeatActivated',
    detail: { property_id: 1, product_id: 'guidebook', version: 2, occurred_at: '2026-11-20T09:30:00Z' },
  },
  SeatDeactivated: {
    type: 'SeatDeactivated',
    detail: { property_id: 1, product_id: 'upsells', version: 2, occurred_at: '2026-11-20T09:31:00Z' },
  },
  PropertyUpdated: {
    type: 'PropertyUpdated',
    detail: { property_id: 2, version: 2, name: 'Harbour View Apartments & Spa', units: 5 },
  },
  SponsorshipEnded: {
    type: 'SponsorshipEnded',
    detail: { partner_id: 1, host_user_id: 3, version: 1, occurred_at: '2026-11-21T16:00:00Z' },
  },
  ReservationChanged: {
    type: 'ReservationChanged',
    detail: {
      property_id: 2,
      version: 1,
      reservation: {
        id: 'BK-88213',
        channel: 'Booking.com',
        booked_at: '2026-11-24T18:12:00.000Z',
        check_in: '2026-12-19',
        check_out: '2026-12-23',
        status: 'confirmed',
      },
    },
  },
  HostErasureRequested: {
    type: 'HostErasureRequested',
    detail: { host_user_id: 2, requested_at: '2026-11-22T08:00:00Z' },
  },
} as const satisfies { readonly [Type in PlatformEventType]: Extract<PlatformEvent, { type: Type }> };

/** The examples as a JSON Lines file for `events publish`: `{"detail-type": ..., "detail": ...}` per line. */
export function eventExamplesFile(): string {
  return `${Object.values(EVENT_EXAMPLES)
    .map((event) => JSON.stringify({ 'detail-type': event.type, detail: event.detail }))
    .join('\n')}\n`;
}
