import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { documentClient, TABLE_NAME } from '../../lambdas/data/db';
import { propertyCreationItems } from '../../lambdas/data/properties';
import type { TestPartner } from '../support/partners';
import { approvedPartner } from '../support/partners';

const COUNT = 8_000;

/** The response as it crosses the wire (fetch would decompress it). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          bytes: Buffer.concat(chunks),
        }),
      );
    }).on('error', reject);
  });
}
let partner: TestPartner;

beforeAll(async () => {
  partner = await approvedPartner();
  const puts = Array.from({ length: COUNT }, (_, i) =>
    propertyCreationItems({
      id: 10_000_000 + partner.id * 100_000 + i,
      partnerId: partner.id,
      hostUserId: 1,
      name: `Holiday apartment number ${i}`,
      units: 1,
      pmsHotelId: `BULK-${i}`,
      createdAt: new Date().toISOString(),
    }),
  ).flat();
  for (let start = 0; start < puts.length; start += 25) {
    await documentClient.send(
      new BatchWriteCommand({
        RequestItems: {
          [TABLE_NAME]: puts
            .slice(start, start + 25)
            .map((item) => ({ PutRequest: { Item: item.Put?.Item ?? {} } })),
        },
      }),
    );
  }
}, 120_000);

describe('a partner with thousands of properties', () => {
  it('gets the whole list gzip-compressed when it accepts gzip, and plain JSON otherwise', async () => {
    const url = `${inject('apiBaseUrl')}/properties`;
    const headers = { Authorization: `Bearer ${partner.key}` };

    const compressed = await rawGet(url, { ...headers, 'Accept-Encoding': 'gzip' });
    const plain = await fetch(url, { headers: { ...headers, 'Accept-Encoding': 'identity' } });
    const compressedBytes = compressed.bytes;

    expect(compressed.status).toBe(200);
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers.vary).toBe('Accept-Encoding');
    const fromGzip = JSON.parse(gunzipSync(compressedBytes).toString()) as { properties: unknown[] };
    expect(fromGzip.properties).toHaveLength(COUNT);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    const fromPlain = (await plain.json()) as { properties: unknown[] };
    expect(fromPlain.properties).toEqual(fromGzip.properties);
    expect(compressedBytes.length).toBeLessThan(JSON.stringify(fromPlain).length / 3);
  });
});
