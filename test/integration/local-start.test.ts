import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/**
 * What `npm start` says while it starts, what it refuses before any work, and who can reach the
 * DynamoDB Local it starts (docs/design/local-runtime.md).
 */
let server: ServerProcess | undefined;

beforeAll(async () => {
  server = await startServerProcess({}, { startupTimeoutMs: 180_000 });
}, 200_000);

afterAll(async () => {
  await server?.stop();
});

/** This machine's addresses other than loopback, as another machine on its networks reaches it. */
const nonLoopbackAddresses = () =>
  Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((address) => !address.internal && !address.address.startsWith('fe80:'))
    .map((address) => address.address);

/** Whether a TCP connection to host:port is accepted, or the error code it ends with. */
function connection(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 5_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timed out');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('npm start', () => {
  it('starts a DynamoDB Local that answers on loopback only, not on the addresses of the network', async () => {
    const port = Number(new URL(server?.runtime.dynamoDbEndpoint ?? '').port);
    const addresses = nonLoopbackAddresses();

    const outcomes = await Promise.all(
      addresses.map(async (address) => [address, await connection(address, port)]),
    );

    expect(addresses.length).toBeGreaterThan(0);
    expect(await connection('127.0.0.1', port)).toBe('accepted');
    expect(outcomes).toEqual(addresses.map((address) => [address, 'ECONNREFUSED']));
  });
});
