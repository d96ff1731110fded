import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ProblemError } from '../../core/contract/problems';
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

/**
 * Whether a gzip body reaches this client as bytes. API Gateway decodes a base64 body to binary
 * according to the request's first `Accept` header and the API's binary media types (`*\/*`);
 * without an `Accept` header it documents no behaviour, and the client might get the base64 text
 * marked `Content-Encoding: gzip`. So only a request with an `Accept` header (and gzip in
 * `Accept-Encoding`) gets a compressed body. Go's default HTTP client sends `Accept-Encoding: gzip`
 * and no `Accept`: it gets plain JSON.
 */
export function canReceiveGzip(headers: Record<string, string | undefined> | null | undefined): boolean {
  return acceptsGzip(headers) && (headerValue(headers, 'accept') ?? '').trim() !== '';
}

/**
 * The entity tag of a body: weak, a hash of its JSON without `generated_at` (the time of the
 * answer, which changes every request and says nothing about the data). Weak because the same tag
 * stands for the plain and the gzip-compressed body (RFC 9110 §8.8.3: a strong tag would have to
 * differ per content coding) and for bodies that differ only in `generated_at`; `If-None-Match`
 * compares weakly, so revalidation works whichever coding the client got.
 */
export function entityTag(body: unknown): string {
  const hashed =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'generated_at'))
      : body;
  return `W/"${createHash('sha256').update(JSON.stringify(hashed)).digest('base64url').slice(0, 27)}"`;
}

/** `If-None-Match` matches the tag (weak comparison, RFC 9110 §13.1.2), or is `*`. */
export function ifNoneMatchHits(
  headers: Record<string, string | undefined> | null | undefined,
  tag: string,
): boolean {
  const value = headerValue(headers, 'if-none-match');
  if (value === undefined) return false;
  if (value.trim() === '*') return true;
  const opaque = (candidate: string) => candidate.trim().replace(/^W\//, '');
  return value.split(',').some((candidate) => opaque(candidate) === opaque(tag));
}

/** What to send instead of a list that no response can carry: pages, and gzip when it would fit. */
export function tooLargeDetail(bytes: number, gzipWouldFit: boolean): string {
  const megabytes = (bytes / 1e6).toFixed(1);
  return gzipWouldFit
    ? `This list is ${megabytes} MB of JSON, more than one uncompressed response can carry. Ask for pages with ?limit=1000 and follow the Link header, or send Accept: application/json with Accept-Encoding: gzip.`
    : `This list is ${megabytes} MB of JSON, more than one response can carry even compressed. Ask for pages with ?limit=1000 and follow the Link header.`;
}

function tooLarge(bytes: number, gzipWouldFit: boolean): ProblemError {
  return new ProblemError('response-too-large', tooLargeDetail(bytes, gzipWouldFit));
}

/** Response headers of a 200 body that the handler adds (the property list's `Link`). */
export type BodyHeaders = Record<string, string>;

/**
 * The 200 answer of a GET: the JSON body, gzip-compressed when it is large and the client can
 * receive gzip, with its entity tag and revalidation caching; or 304 with no body when the
 * client's `If-None-Match` holds the tag. A body that no response can carry is a 406 problem
 * naming `limit`, never a 5xx.
 */
export function jsonResponse(
  body: unknown,
  requestHeaders: Record<string, string | undefined> | null | undefined,
  bodyHeaders: BodyHeaders = {},
): APIGatewayProxyResult {
  const json = JSON.stringify(body);
  const bytes = Buffer.byteLength(json);
  const tag = entityTag(body);
  const headers = {
    'Content-Type': 'application/json',
    Vary: 'Accept, Accept-Encoding',
    ETag: tag,
    'Cache-Control': REVALIDATE,
    ...bodyHeaders,
  };
  // The client holds this representation: nothing to encode or send.
  if (ifNoneMatchHits(requestHeaders, tag)) return notModified(headers);
  if (bytes <= COMPRESS_ABOVE_BYTES || !canReceiveGzip(requestHeaders)) {
    const plain = { statusCode: 200, headers, body: json };
    if (!fits(plain)) throw tooLarge(bytes, fits(compress(json, headers)));
    return plain;
  }
  const compressed = compress(json, headers);
  if (!fits(compressed)) throw tooLarge(bytes, false);
  return compressed;
}

/** Cache-Control of 200 and 304 answers: a client may keep them and must revalidate before reuse. */
export const REVALIDATE = 'private, no-cache';

function compress(json: string, headers: Record<string, string>): APIGatewayProxyResult {
  return {
    statusCode: 200,
    headers: { ...headers, 'Content-Encoding': 'gzip' },
    body: gzipSync(json).toString('base64'),
    isBase64Encoded: true,
  };
}

/**
 * 304: the headers a 200 would carry (RFC 9110 §15.4.5: ETag, Cache-Control, Vary; and Link, so a
 * client walking pages from its cache goes on), without a body or its content headers.
 */
function notModified(headers: Record<string, string>): APIGatewayProxyResult {
  const { 'Content-Type': _type, ...kept } = headers;
  return { statusCode: 304, headers: kept, body: '' };
}
