import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ProblemError } from '../../contract/problems';
import { headerValue } from '../common/http-headers';

/**
 * JSON bodies, gzip-compressed when they are large and the client accepts it. Lambda refuses
 * responses over 6 MB (the payload as the function returns it), so compression is what lets a
 * partner with hundreds of thousands of properties get its whole list in one response.
 */
export const COMPRESS_ABOVE_BYTES = 256 * 1024;

/**
 * Lambda's limit on a synchronous response. It applies to the payload the function returns: the
 * proxy result serialized as JSON, so the body string with its escapes (every `"` of a JSON body
 * costs two bytes), the headers and the base64 of a binary body. Over it, the invocation fails
 * and API Gateway answers 502. The local gateway enforces the same number.
 */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

/** Room kept for the headers the middleware adds after the body is encoded (rate limit, request id). */
export const HEADER_RESERVE_BYTES = 8 * 1024;

/** The size of a proxy result as Lambda measures it: serialized, escapes included. */
export function payloadBytes(result: APIGatewayProxyResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}

function fits(result: APIGatewayProxyResult): boolean {
  return payloadBytes(result) + HEADER_RESERVE_BYTES <= LAMBDA_RESPONSE_LIMIT_BYTES;
}

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
    const plain = { statusCode: 200, headers, body: json };
    if (!fits(plain)) {
      throw new ProblemError(
        'not-acceptable',
        `This response is ${(bytes / 1e6).toFixed(1)} MB of JSON, more than can be sent uncompressed. Send Accept-Encoding: gzip.`,
      );
    }
    return plain;
  }
  const compressed: APIGatewayProxyResult = {
    statusCode: 200,
    headers: { ...headers, 'Content-Encoding': 'gzip' },
    body: gzipSync(json).toString('base64'),
    isBase64Encoded: true,
  };
  if (!fits(compressed)) {
    throw new ProblemError(
      'response-too-large',
      `This list is ${(bytes / 1e6).toFixed(0)} MB of JSON, ${(compressed.body.length / 1e6).toFixed(1)} MB compressed: more than one response can carry. Contact us to raise it.`,
    );
  }
  return compressed;
}
