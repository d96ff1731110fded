import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventsDocument } from '../../asyncapi/document';
import { EVENT_EXAMPLES, SERVICE_EVENT_EXAMPLES } from '../../asyncapi/examples';
import { checkPlatformEvent, PLATFORM_EVENT_SOURCE } from '../../core/contract/platform-events';
import { serviceEventProblems } from '../../core/contract/service-events';
import { isOneLine, WELL_FORMED_ONE_LINE_PATTERN } from '../../core/domain/text';
import { SERVICE_EVENT_SOURCE } from '../../core/outbound-delivery';

/*
 * The AsyncAPI document is as strict as the consumer: for each rule of an event's shape that a JSON
 * Schema can state, an event the consumer refuses is refused by the document's schema too (ajv, as
 * the platform's own tooling would validate), so an event valid against the document is never
 * dead-lettered for its shape. What no JSON Schema states (rules between a reservation's dates,
 * their range) is in the descriptions. And every example of the document is valid against it.
 */

type Json = Record<string, unknown>;
type Event = { readonly type: string; readonly detail: unknown };

const document = eventsDocument();
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...document, $id: 'document.json' });
const validators = new Map<string, ValidateFunction>();
/** The validator of a message's payload, compiled once. */
function payloadOf(type: string): ValidateFunction {
  const known = validators.get(type);
  if (known) return known;
  const validate = ajv.compile({ $ref: `document.json#/components/messages/${type}/payload` });
  validators.set(type, validate);
  return validate;
}

const platformPayload = (event: Event) => ({
  source: PLATFORM_EVENT_SOURCE,
  'detail-type': event.type,
  detail: event.detail,
});
const servicePayload = (event: Event) => ({
  source: SERVICE_EVENT_SOURCE,
  'detail-type': event.type,
  time: '2026-11-18T14:02:11.482Z',
  detail: event.detail,
});

/** What the document's schema says of a platform event, and what the consumer's contract says. */
function judged(event: Event) {
  const validate = payloadOf(event.type);
  return {
    schema: validate(platformPayload(event)) ? 'valid' : 'refused',
    consumer: checkPlatformEvent(event.type, event.detail).ok ? 'valid' : 'refused',
  };
}

function judgedService(event: Event) {
  const validate = payloadOf(event.type);
  return {
    schema: validate(servicePayload(event)) ? 'valid' : 'refused',
    contract: serviceEventProblems(event.type, event.detail).length === 0 ? 'valid' : 'refused',
  };
}

const reservation = EVENT_EXAMPLES.ReservationChanged.detail;
const withReservation = (changes: Json): Event => ({
  type: 'ReservationChanged',
  detail: { ...reservation, reservation: { ...reservation.reservation, ...changes } },
});
const renamed = (name: unknown): Event => ({
  type: 'PropertyUpdated',
  detail: { property_id: 2, version: 3, name },
});

/** Texts the one-line rule refuses: line breaks, controls, bidi overrides and isolates, lone surrogates. */
const NOT_ONE_LINE = [
  'Harbour\nView',
  'Harbour\rView',
  'Harbour\tView',
  'Harbour\u0000View',
  'Harbour\u007fView',
  'Harbour\u0085View',
  'Harbour\u009bView',
  'Harbour\u2028View',
  'Harbour\u2029View',
  'Harbour\u202eweiV',
  'Harbour\u2066View\u2069',
  'Harbour\ud800View',
  'Harbour\udc00View',
];

describe('the AsyncAPI document, as strict as the consumer', () => {
  it('refuses what the consumer refuses: dates that are not calendar dates, date-times without a zone', () => {
    const cases = [
      withReservation({ check_in: '2026-02-30' }),
      withReservation({ check_in: '2026-12-1' }),
      withReservation({ check_in: 'next Friday' }),
      withReservation({ check_out: '2026-13-01' }),
      withReservation({ check_out: '2026-12-23T00:00:00Z' }),
      withReservation({ booked_at: '2026-11-24 18:12' }),
      withReservation({ booked_at: '2026-11-24T18:12:00' }),
      withReservation({ booked_at: '24/11/2026' }),
    ];

    for (const event of cases)
      expect(judged(event), JSON.stringify(event.detail)).toEqual({ schema: 'refused', consumer: 'refused' });
    // The example itself, with its booking's zone written as an offset, is valid to both.
    expect(judged(withReservation({ booked_at: '2026-11-24T19:12:00+01:00' }))).toEqual({
      schema: 'valid',
      consumer: 'valid',
    });
  });

  it('refuses a PropertyUpdated that names no field to change, as the consumer does', () => {
    const nothing: Event = { type: 'PropertyUpdated', detail: { property_id: 2, version: 3 } };

    expect(judged(nothing)).toEqual({ schema: 'refused', consumer: 'refused' });
    expect(judged({ type: 'PropertyUpdated', detail: { property_id: 2, version: 3, units: 5 } })).toEqual({
      schema: 'valid',
      consumer: 'valid',
    });
    expect(judged(renamed('Harbour View'))).toEqual({ schema: 'valid', consumer: 'valid' });
  });

  it('refuses a name, reservation id or channel that is not one line of text, or only spaces, as the consumer does', () => {
    const cases = [
      ...[...NOT_ONE_LINE, '   '].map(renamed),
      ...NOT_ONE_LINE.map((id) => withReservation({ id })),
      ...NOT_ONE_LINE.map((channel) => withReservation({ channel })),
    ];

    for (const event of cases)
      expect(judged(event), JSON.stringify(event.detail)).toEqual({ schema: 'refused', consumer: 'refused' });
    // Right-to-left names keep their direction marks; astral characters are whole pairs.
    for (const name of ['בית\u200fהחוף', 'Casa 🏠 del Mar'])
      expect(judged(renamed(name))).toEqual({ schema: 'valid', consumer: 'valid' });
  });

  it('never accepts a name the consumer refuses, whatever the characters (property-based)', () => {
    const tricky = fc.constantFrom(
      ' ',
      '\t',
      '\n',
      '\r',
      '\u0000',
      '\u0085',
      '\u00a0',
      '\u2028',
      '\u202e',
      '\u2067',
      '\u200f',
      '\ufeff',
      '\ud83c',
      '\udfe0',
      '🏠',
      'é',
      'a',
    );
    const text = fc
      .array(fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 12 })
      .map((parts) => parts.join(''));

    fc.assert(
      fc.property(text, (name) => {
        const { schema, consumer } = judged(renamed(name));
        return schema === 'refused' || consumer === 'valid';
      }),
      { numRuns: 2_000 },
    );
  });

  it('states the one-line rule as a pattern that accepts exactly what isOneLine accepts, with or without the u flag', () => {
    const plain = new RegExp(WELL_FORMED_ONE_LINE_PATTERN);
    const unicode = new RegExp(WELL_FORMED_ONE_LINE_PATTERN, 'u');

    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 8 }), (text) => {
        expect(plain.test(text)).toBe(isOneLine(text));
        expect(unicode.test(text)).toBe(isOneLine(text));
      }),
      { numRuns: 5_000 },
    );
    for (const text of NOT_ONE_LINE) expect([plain.test(text), unicode.test(text)]).toEqual([false, false]);
  });

  it('refuses what the service’s own contract refuses in what it sends', () => {
    const provisioned = SERVICE_EVENT_EXAMPLES.HostProvisioned.detail;
    const cases: Event[] = [
      ...NOT_ONE_LINE.map((contact_name) => ({
        type: 'HostProvisioned',
        detail: { ...provisioned, contact_name },
      })),
      {
        type: 'HostProvisioned',
        detail: { ...provisioned, property: { ...provisioned.property, name: 'Seaside\nLoft' } },
      },
      { type: 'HostProvisioned', detail: { ...provisioned, event_id: 'not-a-uuid' } },
      { type: 'HostProvisioned', detail: { ...provisioned, products: [] } },
      { type: 'HostErased', detail: { ...SERVICE_EVENT_EXAMPLES.HostErased.detail, erased_at: 'today' } },
    ];

    for (const event of cases)
      expect(judgedService(event), JSON.stringify(event.detail)).toEqual({
        schema: 'refused',
        contract: 'refused',
      });
  });

  it('has a valid example of each message, for the schema and for the zod contract alike', () => {
    const messages = (document.components as { messages: Record<string, Json> }).messages;
    const checked: string[] = [];
    for (const [type, message] of Object.entries(messages)) {
      const validate = payloadOf(type);
      for (const { payload } of message.examples as { payload: Json }[]) {
        expect(validate(payload), `${type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        const problems =
          payload.source === PLATFORM_EVENT_SOURCE
            ? checkPlatformEvent(type, payload.detail).ok
              ? []
              : ['refused']
            : serviceEventProblems(type, payload.detail);
        expect(problems, type).toEqual([]);
        checked.push(type);
      }
    }

    expect(checked.sort()).toEqual(
      [...Object.keys(EVENT_EXAMPLES), ...Object.keys(SERVICE_EVENT_EXAMPLES)].sort(),
    );
  });
});
