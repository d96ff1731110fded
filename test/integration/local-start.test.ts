import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../emulator/dynamodb-local';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/**
 * What `npm start` says while it starts, what it refuses before any work, and who can reach the
 * DynamoDB Local it starts (docs/design/local-runtime.md).
 */
let server: ServerProcess | undefined;
let occupant: Server | undefined;

beforeAll(async () => {
  server = await startServerProcess({}, { startupTimeoutMs: 180_000, fromSources: true });
}, 200_000);

afterAll(async () => {
  await server?.stop();
  occupant?.close();
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
  it('says what it is doing at each step, and how far seeding is in events applied of all sent', async () => {
    const lines = server?.output().split('\n') ?? [];
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));

    const steps = [
      at(/^\[\d+\.\d s\] Starting DynamoDB Local\.\.\.$/),
      at(/^\[\d+\.\d s\] Bundling the functions\.\.\.$/),
      at(/^\[\d+\.\d s\] Seeding the demo partners/),
      at(/^\[\d+\.\d s\] Seeding: all [\d,]+ events applied$/),
      at(/^Partner API \(local\) is up in /),
    ];

    expect(
      steps.every((index) => index >= 0),
      lines.join('\n'),
    ).toBe(true);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    // The README's sample shows the same lines, in the same order (times and counts aside).
    const readme = (await readFile('README.md', 'utf8'))
      .split('\n')
      .filter((line) => /^\[\d+\.\d s\] /.test(line));
    const shape = (line: string) => line.replace(/^\[\d+\.\d s\] /, '').replace(/[\d,]+/g, 'N');
    // How many progress lines come before the last depends on the machine's speed.
    const progressLines = (all: string[]) =>
      [...new Set(all.map(shape))].filter((line) => !line.includes('so far'));
    const progress = lines.filter((line) => /^\[\d+\.\d s\] /.test(line)).map(shape);
    expect(readme.length).toBeGreaterThan(0);
    expect(progressLines(readme)).toEqual(progressLines(progress));
    expect(readme.map(shape)).toContain('Seeding: N of N events sent so far applied');
    // Said once at the end, and never twice in a row.
    expect(lines.filter((line) => / events applied$/.test(line)).at(-1)).toMatch(
      /Seeding: all [\d,]+ events applied$/,
    );
    const said = lines
      .filter((line) => /^\[\d+\.\d s\] Seeding: /.test(line))
      .map((line) => line.replace(/^\[[^\]]+\] /, ''));
    expect(said.filter((line, index) => line === said[index - 1])).toEqual([]);
  });

  it('refuses a busy port before it starts DynamoDB Local or bundles anything', async () => {
    const port = await freePort();
    occupant = createServer();
    occupant.listen(port, '127.0.0.1');
    await once(occupant, 'listening');

    const start = startServerProcess({ PORT: String(port) }, { fromSources: true });

    const refusal = await start.then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refusal).toContain(`Port ${port} is in use: stop the other server or run PORT=3001 npm start.`);
    expect(refusal).not.toContain('Starting DynamoDB Local');
    expect(refusal).not.toContain('Bundling');
  });

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
