import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { headerValue } from '../shared/http-headers';
import { ProblemError } from '../shared/problems';

/**
 * JSON bodies, gzip-compressed when they are large and the client accepts it. Lambda refuses
 * responses over 6 MB (the payload as the function returns it), so compression is what lets a
 * partner with hundreds of thousands of properties get its whole list in one response.
 */
export const COMPRESS_ABOVE_BYTES = 256 * 1024;
/** What fits in Lambda's 6 MB response payload with headers and the JSON envelope around it. */
export const MAX_BODY_BYTES = 5_500_000;

export function acceptsGzip(headers: Record<string, string | undefined> | null | undefined): boolean {
  const value = headerValue(headers, 'accept-encoding') ?? '';
  return value
    .split(',')
    .map((part) => part.trim().toLowerCase().split(';'))
    .some(
      ([coding = '', ...parameters]) =>
        (coding === 'gzip' || coding === '*') && !parameters.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)),
    );
}

export function jsonResponse(
  body: unknown,
  requestHeaders: Record<string, string | undefined> | null | undefined,
): APIGatewayProxyResult {
  const json = JSON.stringify(body);
  const bytes = Buffer.byteLength(json);
  const headers = { 'Content-Type': 'application/json', Vary: 'Accept-Encoding' };
  if (bytes <= COMPRESS_ABOVE_BYTES || !acceptsGzip(requestHeaders)) {
    if (bytes > MAX_BODY_BYTES) {
      throw new ProblemError(
        'not-acceptable',
        `This response is ${(bytes / 1e6).toFixed(1)} MB of JSON, more than can be sent uncompressed. Send Accept-Encoding: gzip.`,
      );
    }
    return { statusCode: 200, headers, body: json };
  }
  const compressed = gzipSync(json).toString('base64');
  if (compressed.length > MAX_BODY_BYTES) {
    throw new ProblemError(
      'response-too-large',
      `This list is ${(bytes / 1e6).toFixed(0)} MB of JSON, ${(compressed.length / 1e6).toFixed(1)} MB compressed: more than one response can carry. Contact us to raise it.`,
    );
  }
  return {
    statusCode: 200,
    headers: { ...headers, 'Content-Encoding': 'gzip' },
    body: compressed,
    isBase64Encoded: true,
  };
}
