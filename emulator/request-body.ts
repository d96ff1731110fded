import type { IncomingMessage } from 'node:http';

/**
 * A request's body, read up to `maxBytes`: a request whose Content-Length says more is refused
 * before a byte is read, and one that sends more than it said (or says nothing) is cut off there.
 * `too-large` leaves the rest unread: the answer must close the connection.
 */
export async function readBodyWithin(
  request: IncomingMessage,
  maxBytes: number,
): Promise<Buffer | 'too-large'> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBytes) return 'too-large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
