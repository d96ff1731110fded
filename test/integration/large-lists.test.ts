import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { rawRequest } from '../../verify/http-answers';
import { bulkProperties } from '../support/bulk-properties';
import type { TestPartner } from '../support/partners';
import { approvedPartner } from '../support/partners';

const COUNT = 8_000;

/** The response as it crosses the wire (fetch would decompress it). */
const rawGet = (url: string, headers: Record<string, string>) => rawRequest(url, 'GET', headers, 60_000);

let partner: TestPartner;

beforeAll(async () => {
  partner = await approvedPartner();
  await bulkProperties(partner.id, 10_000_000 + partner.id * 100_000, COUNT);
}, 120_000);

describe('a partner with thousands of properties', () => {
  it('gets the whole list gzip-compressed when it accepts gzip, and plain JSON otherwise', async () => {
    const url = `${inject('apiBaseUrl')}/properties`;
    const headers = { Authorization: `Bearer ${partner.key}` };

    const compressed = await rawGet(url, {
      ...headers,
      Accept: 'application/json',
      'Accept-Encoding': 'gzip',
    });
    const plain = await fetch(url, { headers: { ...headers, 'Accept-Encoding': 'identity' } });
    const compressedBytes = compressed.bytes;

    expect(compressed.status).toBe(200);
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers.vary).toBe('Accept, Accept-Encoding');
    expect(compressed.headers.etag).toBe(plain.headers.get('etag'));
    const fromGzip = JSON.parse(gunzipSync(compressedBytes).toString()) as { properties: unknown[] };
    expect(fromGzip.properties).toHaveLength(COUNT);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    const fromPlain = (await plain.json()) as { properties: unknown[] };
    expect(fromPlain.properties).toEqual(fromGzip.properties);
    expect(compressedBytes.length).toBeLessThan(JSON.stringify(fromPlain).length / 3);
  });

  it('sends a request shaped like Go’s default HTTP client (gzip, no Accept) plain JSON, never base64', async () => {
    // net/http's Transport adds Accept-Encoding: gzip and sends no Accept header.
    const go = await rawGet(`${inject('apiBaseUrl')}/properties`, {
      Authorization: `Bearer ${partner.key}`,
      'User-Agent': 'Go-http-client/1.1',
      'Accept-Encoding': 'gzip',
    });

    expect(go.status).toBe(200);
    expect(go.headers['content-encoding']).toBeUndefined();
    expect(go.headers['content-type']).toBe('application/json');
    const list = JSON.parse(go.bytes.toString('utf8')) as { properties: unknown[] };
    expect(list.properties).toHaveLength(COUNT);
  });
});
