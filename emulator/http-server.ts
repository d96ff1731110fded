import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { renderGatewayResponse } from '../core/contract/gateway-responses';
import { API_BASE_PATH } from '../core/routes';
import type { ObservedExchange } from '../openapi/contract';
import type { AccessLogEntry, AccessLogFacts } from './access-log';
import { accessLogEntry } from './access-log';
import type { GatewayResult, LocalApiGateway } from './api-gateway';
import { referenceDocs } from './reference-docs';
import { readBodyWithin } from './request-body';

const MAX_BODY_BYTES = 1024 * 1024;

export interface HttpServerOptions {
  readonly gateway: LocalApiGateway;
  readonly host: string;
  readonly port: number;
  readonly log: (line: string) => void;
  /** Receives each request's access-log entry, in the deployed stage's format (see access-log.ts). */
  readonly accessLog?: (entry: AccessLogEntry) => void;
  /** Sees every exchange after it is answered (the tests' contract check). */
  readonly observe?: (exchange: ObservedExchange) => void;
  /** Where the API reference page is built and cached (served at /partner-api/v1/docs). */
  readonly docsDirectory: string;
  /** How partners reach us on this server: the reference page's contact. */
  readonly supportAddress: string;
}

async function readBody(request: IncomingMessage): Promise<string | null | 'too-large'> {
  const body = await readBodyWithin(request, MAX_BODY_BYTES);
  if (body === 'too-large') return body;
  return body.length > 0 ? body.toString('utf8') : null;
}

/** Cold starts and waits for a free instance, as Lambda's REPORT lines would show them. */
function invocationNotes(result: GatewayResult): string {
  const notes = result.invocations.flatMap((invocation) => [
    ...(invocation.coldStartMs === undefined
      ? []
      : [`cold start ${invocation.instance} (init ${invocation.coldStartMs.toFixed(0)}ms)`]),
    ...(invocation.error ? [`${invocation.instance} failed: ${invocation.error}`] : []),
    ...(invocation.queuedMs >= 1
      ? [`${invocation.instance} after ${invocation.queuedMs.toFixed(0)}ms queued`]
      : []),
  ]);
  return notes.length > 0 ? ` [${notes.join('; ')}]` : '';
}

function send(
  response: ServerResponse,
  statusCode: number,
  headers: Record<string, string | string[]>,
  body: string | Buffer,
): void {
  response.writeHead(statusCode, { ...headers, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/** Serves the API and the pages over real HTTP, one gateway invocation per request. */
export async function startHttpServer(options: HttpServerOptions): Promise<Server> {
  const server = createServer(async (request, response) => {
    const started = performance.now();
    const startedAtMs = Date.now();
    const path = request.url?.split('?')[0] ?? '/';
    // Paths only: a query string may carry an activation token.
    // Read now: a request refused before its body was read may have lost its socket by the time it is logged.
    const ip = request.socket?.remoteAddress;
    const writeAccessLog = (
      facts: Omit<AccessLogFacts, 'startedAtMs' | 'httpMethod' | 'path' | 'latencyMs'>,
    ) =>
      options.accessLog?.(
        accessLogEntry({
          ...facts,
          startedAtMs,
          httpMethod: request.method ?? 'GET',
          path,
          latencyMs: performance.now() - started,
          ip,
          userAgent: request.headers['user-agent'],
        }),
      );
    try {
      if (request.method === 'GET' && path === `${API_BASE_PATH}/docs`) {
        const docs = await referenceDocs(options.docsDirectory, options.supportAddress);
        send(response, 200, docs.headers, docs.html);
        options.log(`GET ${API_BASE_PATH}/docs 200 ${(performance.now() - started).toFixed(1)}ms`);
        writeAccessLog({ resourcePath: path, responseLength: Buffer.byteLength(docs.html), status: 200 });
        return;
      }
      const body = await readBody(request);
      if (body === 'too-large') {
        // The rest of the body is never read: the connection cannot carry another request.
        send(
          response,
          413,
          { 'Content-Type': 'text/plain', Connection: 'close' },
          'Request body larger than 1 MB.',
        );
        writeAccessLog({ status: 413 });
        return;
      }
      const result = await options.gateway.handle({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        rawHeaders: request.rawHeaders,
        body,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      });
      send(response, result.statusCode, result.headers, result.body);
      options.observe?.({
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        status: result.statusCode,
        headers: result.headers,
        body: result.body,
      });
      const key = result.keyPrefix ? ` ${result.keyPrefix}` : '';
      options.log(
        `${request.method} ${path} ${result.statusCode} ${(performance.now() - started).toFixed(1)}ms${key}${invocationNotes(result)}`,
      );
      writeAccessLog({
        requestId: result.requestId,
        resourcePath: result.resourcePath,
        responseLength: Buffer.byteLength(result.body),
        partnerId: result.partnerId,
        keyPrefix: result.keyPrefix,
        responseType: result.responseType,
        status: result.statusCode,
      });
    } catch (error) {
      // The gateway already turns handler failures into responses; this is the server's own last resort.
      options.log(`${request.method} ${path} failed: ${(error as Error).message}`);
      if (!response.headersSent) {
        const requestId = randomUUID();
        const problem = renderGatewayResponse('DEFAULT_5XX', { requestId });
        send(response, 502, { ...problem.headers, 'x-amzn-RequestId': requestId }, problem.body);
        writeAccessLog({ requestId, responseType: 'DEFAULT_5XX', status: 502 });
      }
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(options.port, options.host);
  await once(server, 'listening');
  return server;
}

/**
 * Fails as the server's own listen would (EADDRINUSE, EACCES) when host:port cannot be listened on:
 * checked before the start's work, so a busy port is said at once rather than after all of it.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, host, resolve);
  });
  await new Promise((resolve) => probe.close(resolve));
}
