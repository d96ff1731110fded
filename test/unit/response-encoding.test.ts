import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../core/contract/problems';
import {
  acceptsGzip,
  canReceiveGzip,
  entityTag,
  HEADER_RESERVE_BYTES,
  ifNoneMatchHits,
  jsonResponse,
  LAMBDA_RESPONSE_LIMIT_BYTES,
  payloadBytes,
} from '../../lambdas/api/response-encoding';

/** What most HTTP clients send: an Accept header and gzip. */
const GZIP = { Accept: 'application/json', 'Accept-Encoding': 'gzip' };

const list = (count: number, nameLength = 24) => ({
  properties: Array.from({ length: count }, (_, id) => ({
    id,
    name: `P${String(id).padStart(nameLength, 'x')}`,
  })),
});

describe('JSON response encoding', () => {
  it('reads Accept-Encoding the way HTTP means it', () => {
    expect(acceptsGzip({ 'Accept-Encoding': 'gzip, deflate, br' })).toBe(true);
    expect(acceptsGzip({ 'accept-encoding': 'br;q=1.0, gzip;q=0.8' })).toBe(true);
    expect(acceptsGzip({ 'accept-encoding': '*' })).toBe(true);
    expect(acceptsGzip({ 'accept-encoding': 'gzip;q=0' })).toBe(false);
    expect(acceptsGzip({ 'accept-encoding': 'br' })).toBe(false);
    expect(acceptsGzip({})).toBe(false);
  });

  it('sends small bodies as plain JSON whatever the client accepts, with a weak tag and revalidation', () => {
    const response = jsonResponse({ ok: true }, GZIP);

    expect(response).toEqual({
      statusCode: 200,
      headers: {
        'Content-Type': 'application/json',
        Vary: 'Accept, Accept-Encoding',
        ETag: entityTag({ ok: true }),
        'Cache-Control': 'private, no-cache',
      },
      body: '{"ok":true}',
    });
    expect(response.headers?.ETag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
  });

  it('gzips large bodies for clients that accept it, and the bytes decode to the same JSON', () => {
    const body = list(20_000);
    const response = jsonResponse(body, GZIP);

    expect(response.isBase64Encoded).toBe(true);
    expect(response.headers?.['Content-Encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.from(response.body, 'base64')).toString())).toEqual(body);
    expect(response.body.length).toBeLessThan(JSON.stringify(body).length / 3);
  });

  it('never gzips for a request without an Accept header (API Gateway would not reliably decode it)', () => {
    const goClient = { 'Accept-Encoding': 'gzip', 'User-Agent': 'Go-http-client/1.1' };

    expect(canReceiveGzip(goClient)).toBe(false);
    expect(canReceiveGzip({ ...goClient, Accept: '*/*' })).toBe(true);
    expect(canReceiveGzip({ ...goClient, accept: '  ' })).toBe(false);
    const response = jsonResponse(list(20_000), goClient);
    expect(response.isBase64Encoded).toBeUndefined();
    expect(response.headers?.['Content-Encoding']).toBeUndefined();
    expect(JSON.parse(response.body)).toEqual(list(20_000));
  });

  it('gives the plain and the gzip body, and bodies differing only in generated_at, one tag', () => {
    const body = { generated_at: '2026-11-22T10:00:00.000Z', ...list(20_000) };
    const later = { ...body, generated_at: '2026-11-22T10:00:05.000Z' };

    const plain = jsonResponse(body, {});
    const compressed = jsonResponse(later, GZIP);

    expect(compressed.headers?.['Content-Encoding']).toBe('gzip');
    expect(compressed.headers?.ETag).toBe(plain.headers?.ETag);
    expect(entityTag({ ...body, properties: body.properties.slice(1) })).not.toBe(plain.headers?.ETag);
  });

  it('answers 304 with no body and the representation headers when If-None-Match holds the tag', () => {
    const body = list(20_000);
    const tag = entityTag(body);

    const response = jsonResponse(body, { ...GZIP, 'If-None-Match': `"other", ${tag}` }, { Link: '</next>' });

    expect(response).toEqual({
      statusCode: 304,
      headers: {
        Vary: 'Accept, Accept-Encoding',
        ETag: tag,
        'Cache-Control': 'private, no-cache',
        Link: '</next>',
      },
      body: '',
    });
    expect(jsonResponse(body, { 'if-none-match': '*' }).statusCode).toBe(304);
    expect(jsonResponse(body, { 'If-None-Match': entityTag(list(3)) }).statusCode).toBe(200);
  });

  it('compares entity tags weakly, as If-None-Match requires', () => {
    const tag = entityTag({ a: 1 });
    const strong = tag.replace(/^W\//, '');

    expect(ifNoneMatchHits({ 'If-None-Match': strong }, tag)).toBe(true);
    expect(ifNoneMatchHits({ 'If-None-Match': ` W/"x" ,${tag} ` }, tag)).toBe(true);
    expect(ifNoneMatchHits({ 'If-None-Match': 'W/"x"' }, tag)).toBe(false);
    expect(ifNoneMatchHits({}, tag)).toBe(false);
  });

  it('sends a large body uncompressed to a client without gzip, while it fits', () => {
    const response = jsonResponse(list(20_000), {});

    expect(response.isBase64Encoded).toBeUndefined();
    expect(response.headers?.['Content-Encoding']).toBeUndefined();
  });

  it('answers response-too-large (406) naming limit when the uncompressed body cannot fit', () => {
    const body = list(Math.ceil(LAMBDA_RESPONSE_LIMIT_BYTES / 30));

    for (const headers of [{}, { 'Accept-Encoding': 'gzip' }]) {
      expect(() => jsonResponse(body, headers)).toThrow(ProblemError);
      try {
        jsonResponse(body, headers);
      } catch (error) {
        expect((error as ProblemError).problem).toMatchObject({
          type: expect.stringMatching(/response-too-large$/),
          status: 406,
          detail: expect.stringMatching(/\?limit=.*Accept: application\/json with Accept-Encoding: gzip/),
        });
      }
    }
    expect(jsonResponse(body, GZIP).isBase64Encoded).toBe(true);
  });

  it('measures what Lambda measures: 190,000 short-named properties fit as a body but not as a payload', () => {
    // Short names: every `"` of the body is escaped in the payload, about 20% more bytes.
    const body = {
      properties: Array.from({ length: 190_000 }, (_, id) => ({
        id: 100_000 + id,
        name: `P${String(id % 1_000).padStart(3, '0')}`,
      })),
    };
    const bodyBytes = Buffer.byteLength(JSON.stringify(body));
    const asPayload = payloadBytes({ statusCode: 200, headers: {}, body: JSON.stringify(body) });
    expect(bodyBytes).toBeLessThan(5_500_000);
    expect(asPayload).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT_BYTES);

    expect(() => jsonResponse(body, {})).toThrow(expect.objectContaining({ statusCode: 406 }));
    const compressed = jsonResponse(body, GZIP);
    expect(compressed.headers?.['Content-Encoding']).toBe('gzip');
    expect(payloadBytes(compressed) + HEADER_RESERVE_BYTES).toBeLessThanOrEqual(LAMBDA_RESPONSE_LIMIT_BYTES);
  });

  it('never returns a payload that leaves less than the header reserve under the limit', () => {
    // Around the edge: bodies whose escaped payload is just under or just over the limit.
    for (const count of [150_000, 160_000, 170_000, 180_000, 190_000, 200_000]) {
      const body = list(count, 4);
      for (const accept of [{}, GZIP]) {
        let response: ReturnType<typeof jsonResponse> | undefined;
        try {
          response = jsonResponse(body, accept);
        } catch (error) {
          expect(error).toBeInstanceOf(ProblemError);
        }
        if (response)
          expect(payloadBytes(response) + HEADER_RESERVE_BYTES).toBeLessThanOrEqual(
            LAMBDA_RESPONSE_LIMIT_BYTES,
          );
      }
    }
  });
});
