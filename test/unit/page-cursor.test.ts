import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../core/contract/problems';
import { decodePageCursor, encodePageCursor } from '../../core/domain/page-cursor';
import { partnerApiRoute } from '../../core/routes';
import { parseQueryParameters } from '../../lambdas/api/request-parameters';

const key = Buffer.alloc(32, 1);
const otherKey = Buffer.alloc(32, 2);
const id = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const partner = fc.integer({ min: 1, max: 1_000_000_000 });

describe('page cursors', () => {
  it('decode to the position they were issued for, for the partner they were issued to', () => {
    fc.assert(
      fc.property(partner, id, (partnerId, afterId) => {
        const cursor = encodePageCursor(key, partnerId, afterId);

        expect(cursor).toMatch(/^[A-Za-z0-9_-]{34}$/);
        expect(decodePageCursor(key, partnerId, cursor)).toEqual({ afterId });
      }),
    );
  });

  it('refuse another partner’s cursor, and one signed with another key', () => {
    fc.assert(
      fc.property(partner, partner, id, (partnerId, otherPartnerId, afterId) => {
        fc.pre(partnerId !== otherPartnerId);
        const cursor = encodePageCursor(key, partnerId, afterId);

        expect(decodePageCursor(key, otherPartnerId, cursor)).toBeUndefined();
        expect(decodePageCursor(otherKey, partnerId, cursor)).toBeUndefined();
      }),
    );
  });

  it('refuse any single changed character, truncation or extension', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(partner, id, fc.nat(), fc.nat(), (partnerId, afterId, position, replacement) => {
        const cursor = encodePageCursor(key, partnerId, afterId);
        const index = position % cursor.length;
        const character = alphabet[replacement % alphabet.length] ?? 'A';
        fc.pre(character !== cursor[index]);
        const changed = cursor.slice(0, index) + character + cursor.slice(index + 1);

        expect(decodePageCursor(key, partnerId, changed)).toBeUndefined();
        expect(decodePageCursor(key, partnerId, cursor.slice(0, -1))).toBeUndefined();
        expect(decodePageCursor(key, partnerId, `${cursor}A`)).toBeUndefined();
        expect(decodePageCursor(key, partnerId, `${cursor}=`)).toBeUndefined();
      }),
    );
  });

  it('refuse strings that are not cursors at all', () => {
    fc.assert(
      fc.property(partner, fc.string({ maxLength: 120 }), (partnerId, text) => {
        expect(decodePageCursor(key, partnerId, text)).toBeUndefined();
      }),
    );
  });
});

describe('limit and cursor query parameters of GET /properties', () => {
  const route = partnerApiRoute('properties');
  const refusal = (query: Record<string, string[]>) => {
    try {
      parseQueryParameters(route, query);
    } catch (error) {
      return error instanceof ProblemError ? error.problem : error;
    }
    return undefined;
  };

  it('are optional: without them the whole list is asked for', () => {
    expect(parseQueryParameters(route, null)).toStrictEqual({
      limit: undefined,
      cursor: undefined,
      pms_hotel_id: undefined,
    });
    expect(parseQueryParameters(route, { limit: ['1000'], cursor: ['abc'] })).toStrictEqual({
      limit: 1000,
      cursor: 'abc',
      pms_hotel_id: undefined,
    });
  });

  it('take pms_hotel_id as sent, alone or with limit', () => {
    expect(parseQueryParameters(route, { pms_hotel_id: ['PMS-42/#&'], limit: ['5'] })).toStrictEqual({
      limit: 5,
      cursor: undefined,
      pms_hotel_id: 'PMS-42/#&',
    });
  });

  it.each([
    [{ limit: ['0'] }, 'limit must be an integer from 1 to 1000; got "0".'],
    [{ limit: ['1001'] }, 'limit must be an integer from 1 to 1000; got "1001".'],
    [{ limit: ['ten'] }, 'limit must be an integer from 1 to 1000; got "ten".'],
    [
      { cursor: ['abc'] },
      'cursor goes with limit: follow the Link header of the previous page, which has both.',
    ],
    [
      { limit: ['10'], cursor: [''] },
      'Give cursor once, exactly as the Link header of the previous page has it.',
    ],
    [
      { limit: ['10'], cursor: ['a', 'b'] },
      'Give cursor once, exactly as the Link header of the previous page has it.',
    ],
    [
      { limit: ['10'], cursor: ['x'.repeat(101)] },
      'Give cursor once, exactly as the Link header of the previous page has it.',
    ],
    [
      { limit: ['10'], cursor: ['abc'], pms_hotel_id: ['PMS-42'] },
      'pms_hotel_id does not go with cursor: it answers one property at most, on one page. Leave cursor out.',
    ],
    [
      { pms_hotel_id: ['PMS 42'] },
      'Give pms_hotel_id once, as 1 to 128 printable characters without spaces, your own id of the property as in its activation link; got "PMS 42".',
    ],
  ])('refuse %j with a 400 that says what to send', (query, detail) => {
    expect(refusal(query)).toMatchObject({ status: 400, detail });
  });
});
