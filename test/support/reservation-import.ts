import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { runCli } from '../../cli/cli';
import { dynamoDb, tableName } from '../../lambdas/data/db';

/**
 * For a test file of `reservations import`: a folder for its import files, made before its tests
 * and removed after them. `folder()` is its path; `writeRows` writes rows there as an import file
 * (after `prefix`, such as a byte order mark) and returns the file's path.
 */
export function importFolder(): {
  readonly folder: () => string;
  readonly writeRows: (rows: unknown, prefix?: string) => Promise<string>;
} {
  let path: string | undefined;
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), 'reservation-import-'));
  });
  afterAll(async () => {
    if (path) await rm(path, { recursive: true, force: true });
  });
  const folder = () => {
    if (!path) throw new Error('The import folder is made in beforeAll');
    return path;
  };
  return { folder, writeRows: (rows, prefix) => writeRowsIn(folder(), rows, prefix) };
}

async function writeRowsIn(folder: string, rows: unknown, prefix = ''): Promise<string> {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, `${prefix}${JSON.stringify(rows)}`);
  return file;
}

/** The arguments of `reservations import` of `file` into a property, then `extra`. */
export const importArguments = (propertyId: number, file: string, ...extra: string[]) => [
  'reservations',
  'import',
  '--property',
  String(propertyId),
  '--file',
  file,
  ...extra,
];

/** `npm run admin -- reservations import … --json --wait` as a real process. */
export async function importAsProcess(propertyId: number, file: string, ...extra: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      join('node_modules', '.bin', 'tsx'),
      ['bin/admin.ts', ...importArguments(propertyId, file, '--json', '--wait', ...extra)],
      {
        env: { ...process.env, PARTNER_API_LOCAL_DIR: inject('localDirectory') },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The same import in-process (same code path as `npm run admin`). */
export async function importInProcess(propertyId: number, file: string, ...extra: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(importArguments(propertyId, file, '--json', '--wait', ...extra), {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  return { code, stdout: out.join(''), stderr: err.join('\n') };
}

/** What imports store in a property's partition: reservations and aggregate items (not the property's own item). */
export async function storedItemsOf(propertyId: number) {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :property',
      ExpressionAttributeValues: { ':property': `PROPERTY#${propertyId}` },
      ProjectionExpression: 'SK',
    }),
  );
  return Items.map((item) => String(item.SK)).filter((sk) => sk !== 'PROPERTY');
}
