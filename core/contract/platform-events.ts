import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { canonicalJson } from '../domain/canonical-json';
import { PRODUCT_ID_PATTERN } from '../domain/catalog';
import { MAX_PROPERTY_NAME_LENGTH, MAX_UNITS } from '../domain/properties';
import type { Reservation } from '../domain/reservations';
import { MAX_LEAD_TIME_DAYS, MAX_STAY_NIGHTS, RESERVATION_DATE_RANGE } from '../domain/reservations';
import type { EventSource } from '../event-delivery';
import { OPERATOR_EVENT_SOURCE, PLATFORM_EVENT_SOURCE } from '../event-delivery';
import { oneLineText, onFirstUse, reservationDateRules, reservationFields } from './reservation-schema';

/**
 * The platform's events (docs/design/events.md): what the rest of the service publishes about
 * hosts after onboarding, to the stage's EventBridge bus, with `source` `host-platform` (and an
 * operator's reservation import, its `ReservationChanged` with `source` `partner-api.operator`, in
 * a sequence of versions of its own: docs/design/events.md#versions). These
 * zod/mini schemas are the contract: the consumer validates every event with them, the operator
 * CLI checks a file with them before it sends any line, and `npm run asyncapi` generates the
 * AsyncAPI document (`asyncapi/platform-events.json`) from them. Each is built on its first use
 * (`detail` is a getter), not when the module loads: a consumer's cold start builds none, and an
 * instance builds only those of the events it is given (docs/design/README.md#cold-start-is-billed).
 */
export { OPERATOR_EVENT_SOURCE, PLATFORM_EVENT_SOURCE } from '../event-delivery';

/** Metadata of the schemas, for the AsyncAPI document. */
export interface EventSchemaMeta {
  id?: string;
  title?: string;
  description?: string;
  examples?: unknown[];
  [key: string]: unknown;
}
export const eventSchemas = z.registry<EventSchemaMeta>();

const id = (description: string) =>
  z.int('must be an integer').check(z.positive('must be positive')).register(eventSchemas, { description });

/** Grows with every change the platform makes to the entity (docs/design/events.md#versions). */
const version = onFirstUse(() =>
  id(
    'Grows with every change the platform makes to this entity. An event whose version is not greater than the one already applied changes nothing.',
  ),
);

const utcTimestamp = (description: string) =>
  z.iso
    .datetime({ error: 'must be an ISO 8601 date-time in UTC, e.g. 2026-05-01T10:00:00Z' })
    .register(eventSchemas, { description });

const productId = onFirstUse(() =>
  z
    .string('must be a string')
    .check(z.regex(PRODUCT_ID_PATTERN, 'must be a catalog product id'))
    .register(eventSchemas, {
      description: 'A catalog product id (assistant, upsells, guidebook, checkin, or a product added since).',
    }),
);

const seatChange = onFirstUse(() =>
  z.object({
    property_id: id('The sponsored property (an id of GET /properties).'),
    product_id: productId(),
    version: version(),
    occurred_at: utcTimestamp('When the platform made the change.'),
  }),
);

const propertyUpdate = onFirstUse(() =>
  z
    .object({
      property_id: id('The sponsored property.'),
      version: version(),
      name: z.optional(
        oneLineText(MAX_PROPERTY_NAME_LENGTH).register(eventSchemas, {
          description: 'The property name partners read in GET /properties.',
        }),
      ),
      units: z.optional(
        z
          .int('must be an integer')
          .check(z.minimum(1, 'must be at least 1'), z.maximum(MAX_UNITS, `must be at most ${MAX_UNITS}`))
          .register(eventSchemas, {
            description: 'Rentable units: occupancy is occupied units / units, capped at 1.',
          }),
      ),
    })
    .check(
      z.refine(
        (update) => update.name !== undefined || update.units !== undefined,
        'names no field to change: give name, units or both',
      ),
    )
    // The refinement, in the JSON Schema's words; inside allOf, so that generators (Modelina) keep
    // the object's model rather than make a union of the two branches.
    .register(eventSchemas, { allOf: [{ anyOf: [{ required: ['name'] }, { required: ['units'] }] }] }),
);

const sponsorshipEnd = onFirstUse(() =>
  z.object({
    partner_id: id('The partner whose sponsorship ends.'),
    host_user_id: id('The host (the host_user_id of GET /usage).'),
    version: version(),
    occurred_at: utcTimestamp('When the host left the partner.'),
  }),
);

const reservationChange = onFirstUse(() => {
  const fields = reservationFields();
  fields.status.register(eventSchemas, { title: 'ReservationStatus' });
  // check_in and check_out are one schema: a calendar date, in the JSON Schema's words too.
  fields.check_in.register(eventSchemas, {
    format: 'date',
    description: `A calendar date, YYYY-MM-DD, between ${RESERVATION_DATE_RANGE.from} and ${RESERVATION_DATE_RANGE.to}.`,
  });
  return z.object({
    property_id: id('The property the reservation is for.'),
    version: version(),
    reservation: z
      .object(fields)
      .check(reservationDateRules())
      .register(eventSchemas, {
        title: 'Reservation',
        description: `A reservation, with the fields and rules of the reservation import file (without property_id): booked_at between ${RESERVATION_DATE_RANGE.from} and ${RESERVATION_DATE_RANGE.to} (UTC), check_out after check_in and at most ${MAX_STAY_NIGHTS} nights later, check_in at most ${MAX_LEAD_TIME_DAYS} days before or after the booking day. status "cancelled" takes it out of every signal.`,
      }),
  });
});

const erasureRequest = onFirstUse(() =>
  z.object({
    host_user_id: id('The host to erase.'),
    requested_at: utcTimestamp('When the host asked to be forgotten.'),
  }),
);

/** What each event does, in the words of the AsyncAPI document and `events publish --help`. */
export const platformEventTypes = {
  SeatActivated: {
    get detail() {
      return seatChange();
    },
    summary: 'A product was switched on for a property: one more seat for its host and partner.',
  },
  SeatDeactivated: {
    get detail() {
      return seatChange();
    },
    summary: 'A product was switched off for a property: one seat fewer for its host and partner.',
  },
  PropertyUpdated: {
    get detail() {
      return propertyUpdate();
    },
    summary: 'A property was renamed or its units changed (the name in GET /properties, units in occupancy).',
  },
  SponsorshipEnded: {
    get detail() {
      return sponsorshipEnd();
    },
    summary:
      'A host left a partner: that partner no longer sees the host, its properties or their pricing signals.',
  },
  ReservationChanged: {
    get detail() {
      return reservationChange();
    },
    summary: 'A reservation was made, changed or cancelled: pricing signals follow.',
  },
  HostErasureRequested: {
    get detail() {
      return erasureRequest();
    },
    summary:
      'A host asked to be forgotten: its personal data, sponsorships, properties and reservations are deleted. Irreversible.',
  },
} as const;

export type PlatformEventType = keyof typeof platformEventTypes;
export const PLATFORM_EVENT_TYPES = Object.keys(platformEventTypes) as PlatformEventType[];

/** The only event an operator's source sends: the consumer refuses any other from it. */
const OPERATOR_EVENT_TYPES: readonly PlatformEventType[] = ['ReservationChanged'];

/**
 * The rule from the bus to the consumer's queue (an EventBridge event pattern): the contract's
 * events from the platform and from this service's operators. The stack's rule and the local bus
 * both read it; what an operator's source may send is the consumer's to check.
 */
export const CONSUMER_EVENT_PATTERN = {
  source: [PLATFORM_EVENT_SOURCE, OPERATOR_EVENT_SOURCE],
  'detail-type': PLATFORM_EVENT_TYPES,
} as const;

export type PlatformEventDetail<Type extends PlatformEventType> = z.output<
  (typeof platformEventTypes)[Type]['detail']
>;

/** One event, as the consumer applies it: its type and its checked detail. */
export type PlatformEvent<Of extends PlatformEventType = PlatformEventType> = {
  [Type in Of]: {
    readonly type: Type;
    readonly detail: PlatformEventDetail<Type>;
    /** When it was published (the envelope's `time`), when the consumer was told. */
    readonly publishedAt?: string;
    /** Whose sequence its `version` is in (the envelope's `source`); absent, the platform's. */
    readonly source?: EventSource;
  };
}[Of];

// The reservation of an event is a stored reservation but for its property.
const reservationIsStored: PlatformEventDetail<'ReservationChanged'>['reservation'] extends Omit<
  Reservation,
  'property_id'
>
  ? true
  : false = true;
void reservationIsStored;

function isPlatformEventType(value: unknown): value is PlatformEventType {
  return typeof value === 'string' && Object.hasOwn(platformEventTypes, value);
}

/** Largest event detail accepted (EventBridge takes 256 KB per entry; ours are far smaller). */
const MAX_DETAIL_BYTES = 16 * 1024;

export type EventCheck = { ok: true; event: PlatformEvent } | { ok: false; problems: string[] };

/** Checks a detail-type and a detail against the contract; every problem names its field. */
export function checkPlatformEvent(detailType: unknown, detail: unknown): EventCheck {
  if (!isPlatformEventType(detailType))
    return {
      ok: false,
      problems: [
        `detail-type ${typeof detailType === 'string' ? `"${detailType.slice(0, 60)}"` : 'is missing or not a string, and'} is not one of ${PLATFORM_EVENT_TYPES.join(', ')}`,
      ],
    };
  const parsed = z.safeParse(platformEventTypes[detailType].detail as z.ZodMiniType, detail);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map(
        (issue) => `detail${issue.path.map((part) => `.${String(part)}`).join('')}: ${issue.message}`,
      ),
    };
  return { ok: true, event: { type: detailType, detail: parsed.data } as PlatformEvent };
}

/**
 * The event as EventBridge hands it to the queue (and the queue to the consumer): the envelope
 * with `detail-type`, `source` and `detail`. The consumer checks the envelope's source and type,
 * then the detail.
 */
const envelopeSchema = onFirstUse(() =>
  z.object({
    id: z.optional(z.string()),
    source: z.enum(
      [PLATFORM_EVENT_SOURCE, OPERATOR_EVENT_SOURCE],
      `source must be "${PLATFORM_EVENT_SOURCE}" (or "${OPERATOR_EVENT_SOURCE}", this service's own)`,
    ),
    'detail-type': z.string('detail-type must be a string'),
    // EventBridge sets it (or keeps the publisher's PutEvents Time): when the event was published.
    time: z.iso.datetime({ error: 'time must be the ISO 8601 UTC time EventBridge gives every event' }),
    detail: z.unknown(),
  }),
);

/** How far ahead of the consumer's clock an event's `time` may be: any more, and it is not a real time. */
const MAX_TIME_AHEAD_MS = 5 * 60_000;

/**
 * An SQS message body (an EventBridge event) checked against the contract, at `nowMs`: its
 * `time` says when it was published (what an event older than its entity is told by), so one
 * without a time, or from the future, is refused.
 */
export function parseEventEnvelope(body: string, nowMs: number): EventCheck & { eventId?: string } {
  if (Buffer.byteLength(body) > MAX_DETAIL_BYTES * 4)
    return { ok: false, problems: ['the event is larger than any event of the contract'] };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, problems: ['the message is not JSON'] };
  }
  const envelope = z.safeParse(envelopeSchema(), json);
  if (!envelope.success) return { ok: false, problems: envelope.error.issues.map((issue) => issue.message) };
  const eventId = envelope.data.id ? { eventId: envelope.data.id } : {};
  const publishedMs = Date.parse(envelope.data.time);
  if (publishedMs - nowMs > MAX_TIME_AHEAD_MS)
    return {
      ok: false,
      problems: [`time ${envelope.data.time} is more than 5 minutes ahead of the consumer's clock`],
      ...eventId,
    };
  const { source } = envelope.data;
  if (
    source !== PLATFORM_EVENT_SOURCE &&
    !(OPERATOR_EVENT_TYPES as readonly string[]).includes(envelope.data['detail-type'])
  )
    return {
      ok: false,
      problems: [
        `source "${source}" sends only ${OPERATOR_EVENT_TYPES.join(', ')}: the other events are the platform's alone`,
      ],
      ...eventId,
    };
  const checked = checkPlatformEvent(envelope.data['detail-type'], envelope.data.detail);
  // A change dated in the future would beat every later change delivered before it.
  const dated = checked.ok ? changeTimeOf(checked.event) : undefined;
  if (dated && Date.parse(dated.at) - nowMs > MAX_TIME_AHEAD_MS)
    return {
      ok: false,
      problems: [`detail.${dated.field} ${dated.at} is more than 5 minutes ahead of the consumer's clock`],
      ...eventId,
    };
  return {
    ...(checked.ok
      ? { ok: true, event: { ...checked.event, publishedAt: new Date(publishedMs).toISOString(), source } }
      : checked),
    ...eventId,
  };
}

/** When the platform says the change happened, for the events that say so. */
function changeTimeOf(event: PlatformEvent): { field: string; at: string } | undefined {
  const detail: Record<string, unknown> = event.detail;
  for (const field of ['occurred_at', 'requested_at'])
    if (typeof detail[field] === 'string') return { field, at: detail[field] };
  return undefined;
}

/**
 * What an event says, as a short digest of its type and checked detail: stored with the version
 * it applied, so that the same version saying something else is told apart from a duplicate.
 */
export function eventFingerprint(event: PlatformEvent): string {
  return createHash('sha256')
    .update(canonicalJson({ type: event.type, detail: event.detail }))
    .digest('base64url')
    .slice(0, 22);
}
