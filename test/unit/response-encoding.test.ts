import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../contract/problems';
import {
  acceptsGzip,
  HEADER_RESERVE_BYTES,
  jsonResponse,
  LAMBDA_RESPONSE_LIMIT_BYTES,
  payloadBytes,
} from '../../lambdas/api/response-encoding';

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

  it('sends small bodies as plain JSON whatever the client accepts', () => {
    const response = jsonResponse({ ok: true }, { 'Accept-Encoding': 'gzip' });

    expect(response).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', Vary: 'Accept-Encoding' },
      body: '{"ok":true}',
    });
  });

  it('gzips large bodies for clients that accept it, and the bytes decode to the same JSON', () => {
    const body = list(20_000);
    const response = jsonResponse(body, { 'Accept-Encoding': 'gzip' });

    expect(response.isBase64Encoded).toBe(true);
    expect(response.headers?.['Content-Encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.from(response.body, 'base64')).toString())).toEqual(body);
    expect(response.body.length).toBeLessThan(JSON.stringify(body).length / 3);
  });

  it('sends a large body uncompressed to a client without gzip, while it fits', () => {
    const response = jsonResponse(list(20_000), {});

    expect(response.isBase64Encoded).toBeUndefined();
    expect(response.headers?.['Content-Encoding']).toBeUndefined();
  });

  it('asks for gzip (406) when the uncompressed body cannot fit in a response', () => {
    const body = list(Math.ceil(LAMBDA_RESPONSE_LIMIT_BYTES / 30));

    expect(() => jsonResponse(body, {})).toThrow(ProblemError);
    try {
      jsonResponse(body, {});
    } catch (error) {
      expect((error as ProblemError).problem).toMatchObject({
        status: 406,
        detail: expect.stringContaining('Send Accept-Encoding: gzip'),
      });
    }
    expect(jsonResponse(body, { 'Accept-Encoding': 'gzip' }).isBase64Encoded).toBe(true);
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
    const compressed = jsonResponse(body, { 'Accept-Encoding': 'gzip' });
    expect(compressed.headers?.['Content-Encoding']).toBe('gzip');
    expect(payloadBytes(compressed) + HEADER_RESERVE_BYTES).toBeLessThanOrEqual(LAMBDA_RESPONSE_LIMIT_BYTES);
  });

  it('never returns a payload that leaves less than the header reserve under the limit', () => {
    // Around the edge: bodies whose escaped payload is just under or just over the limit.
    for (const count of [150_000, 160_000, 170_000, 180_000, 190_000, 200_000]) {
      const body = list(count, 4);
      for (const accept of [{}, { 'Accept-Encoding': 'gzip' }]) {
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
