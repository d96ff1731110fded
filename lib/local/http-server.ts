import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { handleGatewayRequest } from './api-gateway';

const MAX_BODY_BYTES = 1024 * 1024;

async function readBody(request: IncomingMessage): Promise<string | null | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : null;
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
export async function startHttpServer(options: {
  host: string;
  port: number;
  log: (line: string) => void;
}): Promise<Server> {
  const server = createServer(async (request, response) => {
    const started = performance.now();
    try {
      const body = await readBody(request);
      if (body === 'too-large') {
        send(response, 413, { 'Content-Type': 'text/plain' }, 'Request body larger than 1 MB.');
        return;
      }
      const result = await handleGatewayRequest({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        rawHeaders: request.rawHeaders,
        body,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      });
      send(response, result.statusCode, result.headers, result.body);
      const key = result.keyPrefix ? ` ${result.keyPrefix}` : '';
      options.log(
        `${request.method} ${request.url?.split('?')[0]} ${result.statusCode} ${(performance.now() - started).toFixed(1)}ms${key}`,
      );
    } catch (error) {
      // The gateway already turns handler failures into responses; this is the server's own last resort.
      options.log(`${request.method} ${request.url} failed: ${(error as Error).message}`);
      if (!response.headersSent) send(response, 502, { 'Content-Type': 'text/plain' }, 'Bad gateway');
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(options.port, options.host);
  await once(server, 'listening');
  return server;
}
