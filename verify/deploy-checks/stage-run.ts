import type { FunctionAccess } from '../../core/routes';
import { partnerApiRoutes, publicApiRoutes, serviceFunctions } from '../../core/routes';
import type { OperatorTarget } from '../../operations/target';
import type { AuthorizerFailureProbe, ForcedFailure } from '../authorizer-failure';
import type { BackupProbe } from '../backup-probe';
import type { BrowserSession, PageAnswer } from '../browser-session';
import type { RawAnswer } from '../http-answers';
import type { OperatorSettings } from '../operator-checks';
import type { ItemKey } from '../test-data';
import { addProperties, BULK_PROPERTIES } from '../test-data';

/**
 * What every check of `npm run verify` shares: the context it is given, the run it adds to, and
 * how it names a grant, an address and an answer.
 */

export interface VerifyContext extends OperatorSettings {
  readonly target: OperatorTarget;
  readonly timeoutMs: number;
  /** Whether a WAF web ACL stands in front of the APIs (deployed stages; the local server has none). */
  readonly firewall: boolean;
  /** What forcing an authorizer failure needs (authorizer-failure.ts), or why this run does not force one. */
  readonly authorizerFailure: AuthorizerFailureProbe | { readonly skip: string };
  /** AWS Backup's lists about the stage's table (backup-probe.ts), or why the stage has no backup to check. */
  readonly backups: BackupProbe | { readonly skip: string };
}

/** What the checks created, for the clean-up. */
interface Created {
  /** The test partner's slug, once approved. */
  partner?: string;
  keyPrefix?: string;
  /** Items of the index check's property, written straight into the table. */
  indexProperty: ItemKey[];
  /** Items of the bulk properties that make a list large enough to compress. */
  bulk: ItemKey[];
}

/** One run of the table: its context, the test partner's names, and what the checks found and made. */
export interface StageRun {
  readonly context: VerifyContext;
  readonly startedAt: string;
  readonly slug: string;
  readonly stamp: string;
  readonly hostName: string;
  /** The test host's address (an example.com name: no mail reaches anyone). */
  readonly hostEmail: string;
  readonly browser: BrowserSession;
  readonly created: Created;
  // Each set by the check that later ones name in `needs`.
  partnerId?: number;
  revealUrl?: string;
  key?: string;
  propertyId?: number;
  /** Where the activation walk goes next, and the last page it opened. */
  next?: string;
  page?: PageAnswer;
  forced?: ForcedFailure;
}

/** What an earlier check found; the check's `needs` made sure it passed. */
export function known<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`no ${what}: the check that finds it did not pass`);
  return value;
}

/** "the usage function's role: dynamodb:Query on PARTNER#*, dynamodb:UpdateItem on RATELIMIT#*", from the route table. */
export function grantsOf(functionName: string): string {
  const access: FunctionAccess = serviceFunctions.find((spec) => spec.name === functionName)?.access ?? {};
  const table = access.table ?? {};
  const statements = (
    [
      ['getItem', 'GetItem', ''],
      ['query', 'Query', ''],
      ['queryIndex', 'Query', ' (index)'],
      ['updateItem', 'UpdateItem', ''],
      ['putItem', 'PutItem', ''],
      ['conditionCheckItem', 'ConditionCheckItem', ''],
    ] as const
  ).flatMap(([kind, action, where]) =>
    table[kind]
      ? [`dynamodb:${action}${where} with LeadingKeys ${table[kind].map((p) => `${p}*`).join(', ')}`]
      : [],
  );
  const secrets = (access.secrets ?? []).map((name) => `secretsmanager:GetSecretValue on the ${name} secret`);
  return `the ${functionName} function's execution role: ${[...statements, ...secrets].join('; ') || 'no grant'}`;
}

export const api = (run: StageRun, path: string) => `${run.context.target.apiBaseUrl}${path}`;

export const withKey = (run: StageRun) => ({
  Authorization: `Bearer ${known(run.key, 'key')}`,
  Accept: 'application/json',
});

/** Each GET route of the API with its path filled in (once the run has a property), and whether the key goes with it. */
export function getRoutes(run: StageRun): { path: string; keyed: boolean }[] {
  const fill = (path: string) =>
    run.propertyId === undefined ? path : path.replace('{propertyId}', String(run.propertyId));
  return [
    ...partnerApiRoutes.map((route) => ({ path: fill(route.path), keyed: true })),
    ...publicApiRoutes.map((route) => ({ path: fill(route.path), keyed: false })),
  ];
}

export function json(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export const problemName = (answer: RawAnswer) =>
  String(json(answer.bytes)?.type ?? '')
    .split('/')
    .pop() ?? '';

/** The bulk of properties that makes the list large enough to compress, written once (the clean-up deletes it). */
export async function withBulk(run: StageRun): Promise<void> {
  if (run.created.bulk.length === 0)
    run.created.bulk = (await addProperties(known(run.partnerId, 'partner'), BULK_PROPERTIES, 0)).keys;
}
