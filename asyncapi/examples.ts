import type { PlatformEvent, PlatformEventType } from '../core/contract/platform-events';
import type { ServiceEvent, ServiceEventType } from '../core/contract/service-events';

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

/**
 * One example of each event this service sends to the platform, about the same demo data: the
 * activation that made host 1 of partner 1 (`demo-pms`) with its Seaside Loft, the knowledge base
 * the host then submitted for it, and the erasure `HostErasureRequested` above asked for. The
 * AsyncAPI document's examples of the `send` operation; `test/unit/platform-events.test.ts` checks
 * each against the contract.
 */
export const SERVICE_EVENT_EXAMPLES = {
  HostProvisioned: {
    type: 'HostProvisioned',
    detail: {
      event_id: '5b0f8e52-3c1d-4d8e-9a57-2f6c1e4b7a90',
      host_user_id: 1,
      partner_id: 1,
      account: 'created',
      contact_email: 'marta@seaside-stays.example',
      contact_name: 'Seaside Stays',
      language: 'en',
      property: { property_id: 1, pms_hotel_id: 'PMS-1001', name: 'Seaside Loft' },
      products: ['assistant', 'upsells', 'checkin'],
      version: 1,
      occurred_at: '2026-11-18T14:02:11.482Z',
    },
  },
  KnowledgeBaseSubmitted: {
    type: 'KnowledgeBaseSubmitted',
    detail: {
      event_id: 'c2d4a1f7-8e3b-4f60-b1a9-6d5e7c3f9b12',
      host_user_id: 1,
      partner_id: 1,
      property_id: 1,
      first_submission: true,
      language: 'en',
      knowledge_base: {
        property_name: 'Seaside Loft',
        checkin_instructions:
          'The key box is left of the blue door, code 4711.\nThe loft is on the second floor; the lift is behind the stairs.',
        faqs: [
          { question: 'Is there parking?', answer: 'Yes: one free space in the courtyard, number 7.' },
          { question: 'When is check-out?', answer: 'By 11:00. Leave the key in the box.' },
        ],
        offers: [
          {
            title: 'Late check-out',
            description: 'Stay until 14:00 on your last day.',
            price_minor: 2500,
            currency: 'EUR',
          },
        ],
      },
      version: 1,
      occurred_at: '2026-11-18T14:09:47.120Z',
    },
  },
  HostErased: {
    type: 'HostErased',
    detail: {
      event_id: '9e7a3c58-1f2b-4a6d-8c0e-b4d2f6a81c35',
      host_user_id: 2,
      requested_at: '2026-11-22T08:00:00Z',
      erased_at: '2026-11-22T08:00:03.914Z',
    },
  },
} as const satisfies { readonly [Type in ServiceEventType]: Extract<ServiceEvent, { type: Type }> };

/** The examples as a JSON Lines file for `events publish`: `{"detail-type": ..., "detail": ...}` per line. */
export function eventExamplesFile(): string {
  return `${Object.values(EVENT_EXAMPLES)
    .map((event) => JSON.stringify({ 'detail-type': event.type, detail: event.detail }))
    .join('\n')}\n`;
}
