import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../cli/cli';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';

/**
 * Third-party contract and variation tests, generated from the OpenAPI document alone: Portman
 * turns openapi/partner-api.json into a Postman collection (what a partner's tooling would
 * generate) with contract tests on every operation and the variations of test/contract/, and
 * Newman runs it against the suite's local server. Configuration and the quirks it works around:
 * test/contract/README.md.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const contract = join(root, 'test/contract');
const portman = join(root, 'node_modules/@apideck/portman/bin/portman');

interface NewmanFailure {
  readonly error: { readonly name?: string; readonly test?: string; readonly message: string };
  readonly source?: { readonly name?: string };
  readonly at?: string;
}

interface NewmanExecution {
  readonly item: { readonly name: string };
  readonly request?: { readonly method?: string };
  readonly response?: { readonly code: number; readonly stream?: { readonly data: number[] } };
  readonly requestError?: { readonly message: string };
  readonly assertions?: readonly {
    readonly assertion: string;
    readonly error?: { readonly message: string };
  }[];
}

interface NewmanReport {
  readonly run: {
    readonly stats: Record<'requests' | 'assertions' | 'testScripts', { total: number; failed: number }>;
    readonly failures: readonly NewmanFailure[];
    readonly executions: readonly NewmanExecution[];
  };
}

/** What the test reads of test/contract/portman-config.json (generated: openapi/portman-config.ts). */
interface PortmanConfig {
  readonly tests: {
    readonly variationTests: readonly {
      readonly openApiResponse: string;
      readonly variations: readonly { readonly name: string }[];
    }[];
  };
  readonly globals: { readonly collectionVariables: Record<string, string> };
}

interface CollectionItem {
  readonly name: string;
  readonly item?: readonly CollectionItem[];
}

const countRequests = (items: readonly CollectionItem[]): number =>
  items.reduce((sum, item) => sum + (item.item ? countRequests(item.item) : 1), 0);

/**
 * Newman's failure summary: each failing request (its name ends in the variation) with the answer it
 * got, then its failed assertions and errors.
 */
function failureSummary(report: NewmanReport): string {
  const byRequest = new Map<string, NewmanFailure[]>();
  for (const failure of report.run.failures) {
    const name = failure.source?.name ?? failure.at ?? '(collection)';
    byRequest.set(name, [...(byRequest.get(name) ?? []), failure]);
  }
  return [...byRequest]
    .map(([name, failures]) => {
      const response = report.run.executions.find((execution) => execution.item.name === name)?.response;
      const body = response?.stream ? Buffer.from(response.stream.data).toString('utf8').slice(0, 300) : '';
      const lines = failures.map(
        ({ error }) =>
          `  - ${error.test ?? error.name ?? 'Error'}: ${error.message.replace(/\s+/g, ' ').trim()}`,
      );
      return [`${name}${response ? ` -> HTTP ${response.code} ${body}` : ''}`, ...lines].join('\n');
    })
    .join('\n');
}

let directory: string;
let partner: TestPartner;
let metricsOnly: TestPartner;
let propertyId: number;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'portman-contract-'));
  [partner, metricsOnly] = await Promise.all([approvedPartner(), approvedPartner({ revenue: false })]);
  ({ propertyId } = await sponsoredProperty(partner.id));
  // Two reservations, so that the signals' maps (source_mix, occupancy_30d) carry values.
  const day = 86_400_000;
  const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const reservations = ['Airbnb', 'Direct'].map((channel, index) => ({
    id: `portman-${index}`,
    property_id: propertyId,
    channel,
    booked_at: new Date(Date.now() - (10 + index) * day).toISOString(),
    check_in: isoDay(Date.now() + index * day),
    check_out: isoDay(Date.now() + (index + 3) * day),
    status: 'confirmed',
  }));
  const file = join(directory, 'reservations.json');
  await writeFile(file, JSON.stringify(reservations));
  const errors: string[] = [];
  const code = await runCli(
    ['reservations', 'import', '--property', String(propertyId), '--file', file, '--json', '--wait'],
    { out: () => undefined, err: (text) => errors.push(text) },
  );
  if (code !== 0) throw new Error(`Reservation import failed: ${errors.join('\n')}`);
});

afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('Portman contract and variation tests from openapi/partner-api.json', () => {
  it('pass against the local server, every operation and variation', { timeout: 60_000 }, async () => {
    const collectionFile = join(directory, 'collection.json');
    const reportFile = join(directory, 'newman-report.json');
    // A clean environment: no proxy, no colours, nothing written outside the temporary folder
    // (Portman writes ./tmp/ under its working directory and reads .env there; there is none).
    // PORTMAN_* variables become collection variables: bearerToken is the variable the generated
    // collection uses for the bearerAuth scheme.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: directory,
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      DO_NOT_TRACK: '1',
      NO_UPDATE_NOTIFIER: '1',
      PORTMAN_BEARER_TOKEN: partner.key,
      PORTMAN_METRICS_ONLY_KEY: metricsOnly.key,
      PORTMAN_PROPERTY_ID: String(propertyId),
    };
    // Every {{variable}} the configuration names has a value: a PORTMAN_* variable above (Portman
    // camel-cases its name) or a collection variable of the configuration. A route with a new kind
    // of path parameter needs the test partner's id of it here.
    const config = JSON.parse(await readFile(join(contract, 'portman-config.json'), 'utf8')) as PortmanConfig;
    const supplied = new Set([
      ...Object.keys(env)
        .filter((name) => name.startsWith('PORTMAN_'))
        .map((name) =>
          name
            .slice('PORTMAN_'.length)
            .toLowerCase()
            .replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
        ),
      ...Object.keys(config.globals.collectionVariables),
    ]);
    const named = [...JSON.stringify(config).matchAll(/\{\{(\w+)\}\}/g)].map(([, name]) => name);
    expect(
      named.filter((name) => !supplied.has(name ?? '')),
      'variables of test/contract/portman-config.json this test supplies no value for',
    ).toEqual([]);
    const args = [
      portman,
      '--local',
      join(root, 'openapi/partner-api.json'),
      '--baseUrl',
      inject('apiBaseUrl'),
      '--portmanConfigFile',
      join(contract, 'portman-config.json'),
      '--postmanConfigFile',
      join(contract, 'postman-config.json'),
      '--output',
      collectionFile,
      '--runNewman',
      '--newmanOptionsFile',
      join(contract, 'newman-options.json'),
      '--newmanRunOptions',
      JSON.stringify({ reporter: { json: { export: reportFile } } }),
    ];
    // Portman exits 0 even when assertions fail (it only fails on a run error): the verdict is
    // read from Newman's JSON report below.
    const output = await run(process.execPath, args, { cwd: directory, env, timeout: 55_000 }).catch(
      (error: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`Portman failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
      },
    );
    const report = JSON.parse(
      await readFile(reportFile, 'utf8').catch(() => {
        throw new Error(`Newman wrote no report. Portman said:\n${output.stdout}\n${output.stderr}`);
      }),
    ) as NewmanReport;
    const collection = JSON.parse(await readFile(collectionFile, 'utf8')) as {
      item: readonly CollectionItem[];
    };
    const { stats, executions } = report.run;

    expect(
      report.run.failures.length,
      `${report.run.failures.length} Newman failure(s) in ${stats.requests.total} requests:\n${failureSummary(report)}\n`,
    ).toBe(0);
    // Not vacuous: every generated request ran and was checked, its body against its schema (a
    // HEAD answer has no body: its status and required headers). Portman silently drops a schema
    // test it cannot compile or that keeps a $ref.
    expect(stats.requests.total).toBeGreaterThan(0);
    expect(stats.requests.total).toBe(countRequests(collection.item));
    expect(stats.assertions.total).toBeGreaterThan(0);
    const unchecked = executions
      .filter(
        (execution) =>
          !execution.assertions?.some(({ assertion }) =>
            execution.request?.method === 'HEAD'
              ? /status code is/i.test(assertion)
              : assertion.endsWith('Schema is valid'),
          ),
      )
      .map((execution) => execution.item.name);
    expect(unchecked, 'requests without a schema assertion').toEqual([]);
    // The variations the configuration asks for (generated from the route table: npm run openapi)
    // were generated and answered with their status.
    const statuses = Object.fromEntries(
      executions.map((execution) => [execution.item.name, execution.response?.code]),
    );
    const variations = config.tests.variationTests.flatMap(({ openApiResponse, variations }) =>
      variations.map(({ name }) => [name, Number(openApiResponse)] as const),
    );
    expect(variations.length).toBeGreaterThan(0);
    for (const [variation, status] of variations) {
      const answered = Object.entries(statuses).filter(([name]) => name.endsWith(`[${variation}]`));
      expect(answered.length, `requests of variation ${variation}`).toBeGreaterThan(0);
      for (const [name, code] of answered) expect(code, name).toBe(status);
    }
  });
});
