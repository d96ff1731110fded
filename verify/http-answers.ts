import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { rateLimitHeaders } from '../core/domain/rate-limit';

/** An answer as it crossed the wire: status, headers, and the body's bytes (never decompressed). */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bytes: Buffer;
}

/** A request whose body is read as it crossed the wire (fetch would decompress it). */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<RawAnswer> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(url, { method, headers, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          bytes: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/**
 * A HEAD request on a connection of its own, read byte by byte until the server closes it: an
 * HTTP client (Node's, fetch) never reads a body after a HEAD, so only this shows one that a
 * server or gateway sent anyway.
 */
export function rawHeadRequest(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<RawAnswer> {
  const target = new URL(url);
  const tls = target.protocol === 'https:';
  const port = Number(target.port || (tls ? 443 : 80));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const request = [
      `HEAD ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
      'Connection: close',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      '',
    ].join('\r\n');
    const socket: Socket = tls
      ? connectTls({ host, port, servername: host }, () => socket.write(request))
      : connectTcp({ host, port }, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const received = Buffer.concat(chunks);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) {
        reject(new Error(`no complete answer to HEAD ${url}`));
        return;
      }
      const [statusLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const answerHeaders: Record<string, string | string[]> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        const known = answerHeaders[name];
        answerHeaders[name] = known === undefined ? value : [known, value].flat();
      }
      resolve({
        status: Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers: answerHeaders,
        bytes: received.subarray(end + 4),
      });
    });
  });
}

export const header = (answer: RawAnswer, name: string) => {
  const value = answer.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};

/** The rate-limit headers every answer of the API's code carries, as the limiter names them. */
export const RATE_LIMIT_HEADERS = Object.keys(
  rateLimitHeaders({ admitted: true, atMs: 0, limit: 1, remaining: 1, resetSeconds: 0 }),
).map((name) => name.toLowerCase());

/**
 * Headers whose value belongs to one answer, not to the resource: the request's id, the limiter's
 * counters (each request counts), and what the connection or the way there adds (API Gateway's and
 * CloudFront's ids, the date). The length is left out too: a HEAD may state the GET's, or none.
 */
const PER_ANSWER = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'x-request-id',
  'x-amzn-requestid',
  'x-amz-apigw-id',
  'x-amzn-trace-id',
  'x-amz-cf-id',
  'x-amz-cf-pop',
  'x-cache',
  'via',
  'ratelimit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
]);

/** Per-answer headers that must still be there on both (their values may differ). */
const PRESENT_ON_BOTH = ['x-request-id', 'ratelimit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/**
 * What makes a HEAD answer not the GET's without its body (RFC 9110 §9.3.2): another status, a
 * body, a header of the resource missing, added or with another value. Empty when it is the GET's.
 */
export function headDifferences(get: RawAnswer, head: RawAnswer): string[] {
  const differences: string[] = [];
  if (head.status !== get.status) differences.push(`status ${head.status}, GET ${get.status}`);
  if (head.bytes.length > 0) differences.push(`${head.bytes.length} body bytes`);
  const names = new Set([...Object.keys(get.headers), ...Object.keys(head.headers)]);
  for (const name of [...names].sort()) {
    const onGet = header(get, name);
    const onHead = header(head, name);
    if (PER_ANSWER.has(name)) {
      if (PRESENT_ON_BOTH.includes(name) && (onGet === '') !== (onHead === ''))
        differences.push(`${name} ${onHead === '' ? 'missing' : 'added'}`);
    } else if (onGet !== onHead)
      differences.push(
        onHead === ''
          ? `${name} missing`
          : onGet === ''
            ? `${name} added`
            : `${name} "${onHead}", GET "${onGet}"`,
      );
  }
  return differences;
}

/**
 * What makes an answer to `If-None-Match` with the current tag not a proper 304 (RFC 9110 §15.4.5):
 * another status, a body, the tag or the caching headers not repeated, or the rate-limit headers
 * (a 304 counts against the limit like any answer) missing. Empty when it is one.
 */
export function revalidationDifferences(get: RawAnswer, revalidated: RawAnswer): string[] {
  const differences: string[] = [];
  if (revalidated.status !== 304) differences.push(`status ${revalidated.status}`);
  if (revalidated.bytes.length > 0) differences.push(`${revalidated.bytes.length} body bytes`);
  for (const name of ['etag', 'cache-control', 'vary'])
    if (header(get, name) !== '' && header(revalidated, name) !== header(get, name))
      differences.push(
        header(revalidated, name) === '' ? `${name} missing` : `${name} "${header(revalidated, name)}"`,
      );
  const missing = RATE_LIMIT_HEADERS.filter((name) => header(revalidated, name) === '');
  if (missing.length > 0) differences.push(`no ${missing.join(', ')}`);
  return differences;
}
