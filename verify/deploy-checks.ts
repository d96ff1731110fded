import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { openReveal } from '../core/contract/reveal-crypto';
import { GRANTABLE_SCOPES } from '../core/domain/scopes';
import type { FunctionAccess, PartnerApiRoute } from '../core/routes';
import {
  API_BASE_PATH,
  pageFunctionName,
  partnerApiRoutes,
  publicApiRoutes,
  SECRET_SCANNING_PATH,
  serviceFunctions,
} from '../core/routes';
import { getHostIdByEmail, getHostRecord, getHostStanding } from '../lambdas/data/hosts';
import { getPartnerBySlug } from '../lambdas/data/partners';
import { publishEventsFile } from '../operations/events';
import { revokeKey } from '../operations/keys';
import { createActivationLink } from '../operations/links';
import { approvePartner, suspendPartner } from '../operations/partners';
import type { OperatorTarget } from '../operations/target';
import type { AuthorizerFailureProbe, ForcedFailure } from './authorizer-failure';
import { COUNT_CHECK, countedByFilters, FORCE_CHECK, forceAuthorizerFailure } from './authorizer-failure';
import type { BackupProbe } from './backup-probe';
import { RECOVERY_POINT_MAX_AGE_HOURS } from './backup-probe';
import type { PageAnswer } from './browser-session';
import { BrowserSession, fillForm, pageTitle, postFormOf } from './browser-session';
import type { CheckResult, CheckRow, Verdict } from './checks';
import { fail, pass, runChecks, skip } from './checks';
import type { RawAnswer } from './http-answers';
import {
  headDifferences,
  header,
  RATE_LIMIT_HEADERS,
  rawHeadRequest,
  rawRequest,
  revalidationDifferences,
} from './http-answers';
import type { OperatorSettings } from './operator-checks';
import { auditTrailThroughIndex, partnerAuditTrail, partnerTraffic } from './operator-checks';
import type { ItemKey } from './test-data';
import { addProperties, BULK_PROPERTIES, deleteItems } from './test-data';

/**
 * The deploy verification (`npm run verify`, docs/deploying.md): every call whose IAM policy or API
 * Gateway behaviour no local test can prove, made for real against a stage with a throw-away test
 * partner. It is the table DEPLOY_CHECKS below, run in order by `runChecks` (checks.ts): each row
 * is a named check returning pass, fail (with the AWS call it makes and the statement that allows
 * it, so a failure points at the statement to fix) or skip (with the reason). A check that uses
 * what an earlier one makes (the partner, its key, the browser session) names it in `needs`.
 *
 * `npm run smoke` (smoke-checks.ts) shares the runner and the report but not the table: it needs
 * only a partner key and writes nothing, where this needs AWS credentials and creates test data.
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
interface StageRun {
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
function known<T>(value: T | undefined, what: string): T {
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

/** The partner API routes the route table grants a `Query` on the global index. */
const ROUTES_QUERYING_THE_INDEX: readonly PartnerApiRoute[] = partnerApiRoutes.filter(
  (route) => (route.access as FunctionAccess).table?.queryIndex !== undefined,
);
const MARKETPLACE_INDEX_CHECK = 'index query (marketplacePage): GET the marketplace';
const ONBOARDING_INDEX_CHECK = 'index query (onboardingPage): GET the onboarding wizard';

/**
 * The checks that settle how AWS reads `dynamodb:LeadingKeys` for a `Query` on the global index
 * (the index's partition key, as the grants assume): one per function the route table grants an
 * index query, named by the request that makes the function query the index. A partner API route
 * gets its check from the table; a page's is written below, and a function given `queryIndex`
 * without a check here fails the verification's test. They run first, right after what they need
 * (the partner, its key, the activation link), so that a deny is at the top of the report.
 */
export const INDEX_QUERY_CHECKS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ROUTES_QUERYING_THE_INDEX.map((route) => [route.id, `index query (${route.id}): GET ${route.path}`]),
  ),
  marketplacePage: MARKETPLACE_INDEX_CHECK,
  onboardingPage: ONBOARDING_INDEX_CHECK,
};

/** The operator policy's index query (`audit list` without a partner reads the trail's index). */
export const OPERATOR_INDEX_CHECK = 'index query (OperatorPolicy): npm run admin -- audit list --since';

const APPROVE = 'approve a test partner';
const REVEAL = 'reveal the key (GET and POST /reveal/{revealId})';
const OPEN_LINK = 'open the activation link';
const PROVISION = 'provision the host (marketplace POST: one TransactWriteItems)';
/** What the index checks need before them: the partner, its key, the activation and the provisioning. */
export const PREREQUISITE_CHECKS = [APPROVE, REVEAL, OPEN_LINK, PROVISION];

/** The functions the route table grants a `Query` on the global index. */
export const functionsQueryingTheIndex = (): string[] =>
  serviceFunctions.filter((spec) => spec.access.table?.queryIndex).map((spec) => spec.name);

/** The backup check: it needs nothing of the run, and skips, saying why, where there is no AWS Backup. */
export const BACKUP_CHECK =
  'AWS Backup: a recovery point of the table under a day old, copied to the other vault';

const GZIP = 'GET /properties, Accept: application/json and Accept-Encoding: gzip';
const NO_ACCEPT = "GET /properties, Accept-Encoding: gzip and no Accept (Go's default client)";

/**
 * The checks, in the order of the report: first the index queries, right after what they need (the
 * partner, its key, the activation link), so that a deny is at the top; the clean-up last. `needs`
 * names the check that makes what a row uses (the key, the session's next page, the forced failure).
 */
const DEPLOY_CHECKS: readonly CheckRow<StageRun>[] = [
  { name: APPROVE, run: approveTestPartner },
  { name: REVEAL, needs: APPROVE, run: revealTheKey },
  // One per partner API route that queries the index, on a property the first of them writes.
  () =>
    ROUTES_QUERYING_THE_INDEX.map((route) => ({
      name: INDEX_QUERY_CHECKS[route.id] ?? route.id,
      needs: REVEAL,
      run: (run) => routeThroughIndex(run, route),
    })),
  {
    name: OPERATOR_INDEX_CHECK,
    needs: APPROVE,
    run: ({ context, startedAt, slug }) =>
      auditTrailThroughIndex(context, context.target.stage, startedAt, slug),
  },
  { name: OPEN_LINK, needs: APPROVE, run: openActivationLink },
  {
    name: MARKETPLACE_INDEX_CHECK,
    needs: OPEN_LINK,
    run: (run) => catalogThroughIndex(run, 'marketplacePage'),
  },
  { name: PROVISION, needs: MARKETPLACE_INDEX_CHECK, run: provisionTheHost },
  {
    name: ONBOARDING_INDEX_CHECK,
    needs: PROVISION,
    run: (run) => catalogThroughIndex(run, 'onboardingPage'),
  },
  {
    name: 'complete the onboarding wizard',
    needs: ONBOARDING_INDEX_CHECK,
    run: completeTheWizard,
  },
  { name: 'GET /usage: authorizer key read, limiter write', needs: REVEAL, run: usage },
  // HEAD on every GET route: the GET's status and headers, no body.
  (run) =>
    getRoutes(run).map((route) => ({
      name: `HEAD ${route.path}`,
      needs: REVEAL,
      run: () => head(run, route),
    })),
  // If-None-Match with the tag of an answer: a 304 with no body that still carries the rate-limit headers.
  (run) =>
    getRoutes(run)
      .filter((route) => route.keyed)
      .map((route) => ({
        name: `GET ${route.path}, If-None-Match: its ETag`,
        needs: REVEAL,
        run: () => revalidation(run, route),
      })),
  { name: FORCE_CHECK, run: forceTheAuthorizerFailure },
  { name: COUNT_CHECK, needs: FORCE_CHECK, run: countTheAuthorizerFailure },
  { name: 'GET /properties', needs: PROVISION, run: properties },
  { name: GZIP, needs: REVEAL, run: gzipped },
  { name: NO_ACCEPT, needs: REVEAL, run: withoutAccept },
  { name: 'POST /properties', needs: REVEAL, run: methodNotAllowed },
  { name: 'GET /usage, Accept: text/html', needs: REVEAL, run: notAcceptable },
  { name: `POST ${SECRET_SCANNING_PATH}, unsigned`, needs: REVEAL, run: unsignedLeakReport },
  { name: 'a request the WAF managed rules block', needs: REVEAL, run: blockedByTheFirewall },
  {
    name: 'npm run admin -- audit list --partner',
    needs: REVEAL,
    run: ({ context, slug }) => partnerAuditTrail(context, context.target.stage, slug),
  },
  {
    name: 'npm run admin -- traffic',
    needs: REVEAL,
    run: ({ context, slug }) => partnerTraffic(context, context.target.stage, slug),
  },
  { name: BACKUP_CHECK, run: ({ context }) => recentCopiedBackup(context.backups) },
  { name: 'clean up', run: cleanUp },
];

/** Runs DEPLOY_CHECKS against the context's stage, passing each result to `log` as it comes. */
export async function verifyStage(
  context: VerifyContext,
  log: (result: CheckResult) => void,
): Promise<CheckResult[]> {
  const startedAt = new Date().toISOString();
  const stamp = startedAt.replace(/\D/g, '').slice(0, 14);
  const slug = `verify-${stamp}-${randomBytes(2).toString('hex')}`;
  const run: StageRun = {
    context,
    startedAt,
    stamp,
    slug,
    hostName: `Verification host ${stamp}`,
    hostEmail: `host-${stamp}@${slug}.example.com`,
    browser: new BrowserSession(context.timeoutMs),
    created: { indexProperty: [], bulk: [] },
  };
  return runChecks(DEPLOY_CHECKS, run, log, 'the network path to the stage, or your credentials');
}

const api = (run: StageRun, path: string) => `${run.context.target.apiBaseUrl}${path}`;
const withKey = (run: StageRun) => ({
  Authorization: `Bearer ${known(run.key, 'key')}`,
  Accept: 'application/json',
});

/** Each GET route of the API with its path filled in (once the run has a property), and whether the key goes with it. */
function getRoutes(run: StageRun): { path: string; keyed: boolean }[] {
  const fill = (path: string) =>
    run.propertyId === undefined ? path : path.replace('{propertyId}', String(run.propertyId));
  return [
    ...partnerApiRoutes.map((route) => ({ path: fill(route.path), keyed: true })),
    ...publicApiRoutes.map((route) => ({ path: fill(route.path), keyed: false })),
  ];
}

function json(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const problemName = (answer: RawAnswer) =>
  String(json(answer.bytes)?.type ?? '')
    .split('/')
    .pop() ?? '';

/** A Log4Shell lookup, which AWSManagedRulesKnownBadInputsRuleSet blocks in a query string. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the text a malicious client sends, not a template
const LOG4J_LOOKUP = '${jndi:ldap://verify.invalid/a}';

/** An approved test partner with its first key, as `partners approve` makes one (no mail). */
async function approveTestPartner(run: StageRun): Promise<Verdict> {
  const approval = await approvePartner(
    run.context.target,
    {
      name: `Deploy verification ${run.stamp} (test data)`,
      slug: run.slug,
      email: `deploy-verification@${run.slug}.example.com`,
      products: ['assistant', 'upsells'],
      scopes: GRANTABLE_SCOPES,
    },
    Date.now(),
  ).then(
    (value) => value,
    (error: unknown) => error as Error,
  );
  if (approval instanceof Error) {
    // An approval that committed its partner and key before failing (the sandbox's sample hosts,
    // say) leaves them for the clean-up to revoke and suspend.
    const committed = await getPartnerBySlug(run.slug, { consistent: true }).catch(() => undefined);
    if (committed) {
      run.partnerId = committed.id;
      run.created.partner = run.slug;
      const [keyPrefix] = committed.keyPrefixes;
      if (keyPrefix) run.created.keyPrefix = keyPrefix;
    }
    return fail(
      `${approval.name}: ${approval.message}`,
      'your own credentials: dynamodb:TransactWriteItems on the table, secretsmanager:GetSecretValue on the sealing secret, apigateway:POST /apikeys and /usageplans/*/keys',
    );
  }
  run.partnerId = approval.result.partner_id;
  run.revealUrl = approval.result.reveal_url;
  run.created.partner = run.slug;
  run.created.keyPrefix = approval.result.key_prefix;
  return pass(`${run.slug} (partner ${run.partnerId}), key ${approval.result.key_prefix}`);
}

/** The one-time reveal, as the page's script does it. */
async function revealTheKey(run: StageRun): Promise<Verdict> {
  const { timeoutMs } = run.context;
  const [revealPage = '', fragmentSecret = ''] = known(run.revealUrl, 'reveal URL').split('#');
  const revealGet = await rawRequest(revealPage, 'GET', { Accept: 'text/html' }, timeoutMs);
  const revealPost = await fetch(revealPage, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      secret_digest: createHash('sha256')
        .update(Buffer.from(fragmentSecret, 'base64url'))
        .digest('base64url'),
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const sealed = (await revealPost.json().catch(() => ({}))) as { iv?: string; ciphertext?: string };
  if (revealGet.status !== 200 || revealPost.status !== 200 || !sealed.iv || !sealed.ciphertext)
    return fail(
      `GET ${revealGet.status}, POST ${revealPost.status}`,
      `dynamodb:GetItem, UpdateItem REVEAL# and PutItem AUDIT#: ${grantsOf('revealPage')}`,
    );
  run.key = openReveal({ fragmentSecret, iv: sealed.iv, ciphertext: sealed.ciphertext });
  return pass('GET 200, POST 200, key decrypted in the client');
}

/**
 * A partner API route that reads through the index (how AWS reads LeadingKeys there is what no
 * simulator settles), on a property of the test partner that the first of these checks writes
 * straight into the table, so that they run before any activation. A new API Gateway key can take
 * a few seconds to reach the usage plan, so a deployed stage gets a minute to accept it.
 */
async function routeThroughIndex(run: StageRun, route: PartnerApiRoute): Promise<Verdict> {
  if (run.propertyId === undefined) {
    const written = await addProperties(known(run.partnerId, 'partner'), 1, BULK_PROPERTIES);
    run.created.indexProperty = written.keys;
    run.propertyId = written.ids[0] ?? 0;
  }
  const path = api(run, route.path.replace('{propertyId}', String(run.propertyId)));
  const keyDeadline = Date.now() + (run.context.target.usagePlanKeys ? 60_000 : 0);
  let answer = await rawRequest(path, 'GET', withKey(run), run.context.timeoutMs);
  while (answer.status !== 200 && Date.now() < keyDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    answer = await rawRequest(path, 'GET', withKey(run), run.context.timeoutMs);
  }
  if (answer.status === 200 && json(answer.bytes))
    return pass(`200 for property ${run.propertyId}: read through the index`);
  const prefixes = (route.access as FunctionAccess).table?.queryIndex ?? [];
  return fail(
    `${answer.status} ${problemName(answer) || header(answer, 'x-amzn-errortype')}`,
    `dynamodb:Query on the index with LeadingKeys ${prefixes.join(', ')} (the index's partition key): ${grantsOf(route.id)}; the authorizer and the usage plan key if /usage fails too`,
  );
}

/** A new host's activation link, opened in a browser session: a session cookie and the marketplace next. */
async function openActivationLink(run: StageRun): Promise<Verdict> {
  const link = await createActivationLink(
    run.context.target,
    {
      slug: run.slug,
      email: run.hostEmail,
      name: run.hostName,
      pmsHotelId: `VERIFY-${run.stamp}`,
      products: ['assistant', 'upsells'],
      ttlSeconds: 900,
    },
    Date.now(),
  );
  const activate = await run.browser.open(link.url);
  if (activate.status !== 303 || !activate.location)
    return fail(
      `${activate.status} ${pageTitle(activate.html)}`,
      `dynamodb:GetItem PARTNERSLUG#, PARTNER#, SIGNING_SECRET#, ACTIVATION_LINK#, NONCE# and both secrets: ${grantsOf('activatePage')}`,
    );
  run.next = activate.location;
  return pass('303 to the marketplace, session cookie set');
}

/** The next page of the walk, which shows its form only once it read the product catalog through the index. */
async function catalogThroughIndex(
  run: StageRun,
  functionName: 'marketplacePage' | 'onboardingPage',
): Promise<Verdict> {
  const page = await run.browser.open(known(run.next, 'page to open'));
  run.page = page;
  if (page.status === 200 && postFormOf(page.html))
    return pass(`200, "${pageTitle(page.html)}": the catalog read through the index`);
  return fail(
    `${page.status} ${pageTitle(page.html)}`,
    `dynamodb:Query on the index with LeadingKeys PRODUCTS: ${grantsOf(functionName)}`,
  );
}

/** The marketplace's form posted: the provisioning, one TransactWriteItems evaluated item by item. */
async function provisionTheHost(run: StageRun): Promise<Verdict> {
  const marketplace = known(run.page, 'marketplace');
  const form = postFormOf(marketplace.html);
  const provisioned = form
    ? await run.browser.open(new URL(form.action, marketplace.url).toString(), {
        method: 'POST',
        body: fillForm(form, 'Deploy verification'),
      })
    : undefined;
  if (provisioned?.status !== 303 || !provisioned.location)
    return fail(
      `marketplace ${marketplace.status}, POST ${provisioned?.status ?? '-'} ${pageTitle(provisioned?.html ?? marketplace.html)}`,
      `dynamodb:TransactWriteItems, evaluated per item (Put, Update, ConditionCheck with LeadingKeys): ${grantsOf('marketplacePage')}`,
    );
  run.next = provisioned.location;
  return pass('303 to the onboarding wizard');
}

/** Every step of the wizard submitted with test answers, to the page that has no form. */
async function completeTheWizard(run: StageRun): Promise<Verdict> {
  let page = known(run.page, 'wizard');
  let steps = 0;
  let stuck: string | undefined;
  for (let form = postFormOf(page.html); form && steps < 10; form = postFormOf(page.html)) {
    steps += 1;
    const submitted = await run.browser.open(new URL(form.action, page.url).toString(), {
      method: 'POST',
      body: fillForm(form, 'Deploy verification test data'),
    });
    if (submitted.status !== 303 || !submitted.location) {
      stuck = `step ${steps}: ${submitted.status} ${pageTitle(submitted.html)}`;
      break;
    }
    page = await run.browser.open(submitted.location);
  }
  if (!stuck && page.status === 200 && !postFormOf(page.html))
    return pass(`${steps} steps, ends on "${pageTitle(page.html)}"`);
  return fail(
    stuck ?? `${page.status} ${pageTitle(page.html)}`,
    `dynamodb:GetItem, Query, UpdateItem PARTNER#, PROPERTY# and PutItem AUDIT#: ${grantsOf('onboardingPage')}`,
  );
}

/** The authorizer's key read and the limiter's write. */
async function usage(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(api(run, '/usage'), 'GET', withKey(run), run.context.timeoutMs);
  if (
    answer.status === 200 &&
    header(answer, 'ratelimit').includes('r=') &&
    json(answer.bytes)?.partner_id !== undefined
  )
    return pass(`200, ${header(answer, 'ratelimit')}`);
  return fail(
    `${answer.status} ${problemName(answer) || header(answer, 'x-amzn-errortype')}`,
    `dynamodb:GetItem APIKEY# (${grantsOf('authorizer')}); dynamodb:Query and UpdateItem (${grantsOf('usage')}); the usage plan key (apiKeySource AUTHORIZER)`,
  );
}

/** HEAD answers as the GET does, without a body (read from the raw connection). */
async function head(run: StageRun, route: { path: string; keyed: boolean }): Promise<Verdict> {
  const headers = route.keyed ? withKey(run) : { Accept: 'application/json' };
  const get = await rawRequest(api(run, route.path), 'GET', headers, run.context.timeoutMs);
  const answer = await rawHeadRequest(api(run, route.path), headers, run.context.timeoutMs);
  const differences = get.status === 200 ? headDifferences(get, answer) : [`GET ${get.status}`];
  if (differences.length === 0)
    return pass(
      `${answer.status}, no body, the GET's headers (${Object.keys(answer.headers)
        .filter((name) => ['etag', 'content-type', 'cache-control', ...RATE_LIMIT_HEADERS].includes(name))
        .join(', ')})`,
    );
  return fail(
    differences.join('; '),
    `the HEAD method of ${API_BASE_PATH}${route.path} (API Gateway strips the body of a HEAD answer; the handler answers it as a GET)`,
  );
}

/** A GET with its answer's ETag: a 304 with no body, its caching and rate-limit headers. */
async function revalidation(run: StageRun, route: { path: string }): Promise<Verdict> {
  const { timeoutMs } = run.context;
  const get = await rawRequest(api(run, route.path), 'GET', withKey(run), timeoutMs);
  const tag = header(get, 'etag');
  const revalidated = tag
    ? await rawRequest(api(run, route.path), 'GET', { ...withKey(run), 'If-None-Match': tag }, timeoutMs)
    : undefined;
  const differences = !revalidated
    ? [`GET ${get.status} without an ETag`]
    : revalidationDifferences(get, revalidated);
  if (differences.length === 0)
    return pass(`304, no body, ETag and ${header(revalidated ?? get, 'ratelimit')}`);
  return fail(
    differences.join('; '),
    "the handler's conditional answer (lambdas/api/middleware.ts) and API Gateway's Lambda proxy passing a 304 and its headers on",
  );
}

/** An authorizer failure, forced for real (authorizer-failure.ts), unless this run may not fire its alarm. */
async function forceTheAuthorizerFailure(run: StageRun): Promise<Verdict> {
  const probe = run.context.authorizerFailure;
  if ('skip' in probe) return skip(probe.skip);
  const { verdict, forced } = await forceAuthorizerFailure(
    probe,
    run.context.target.apiBaseUrl,
    run.context.timeoutMs,
  );
  run.forced = forced;
  return verdict;
}

/** The forced failure's access-log line, counted by the stage's answered-5xx and authorizer-failures filters. */
async function countTheAuthorizerFailure(run: StageRun): Promise<Verdict> {
  const probe = run.context.authorizerFailure;
  if ('skip' in probe) return skip(probe.skip);
  return countedByFilters(probe, known(run.forced, 'forced failure'));
}

/** The partner's properties, the activated one among them. */
async function properties(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(api(run, '/properties'), 'GET', withKey(run), run.context.timeoutMs);
  const list = (json(answer.bytes)?.properties ?? []) as { id: number; name: string }[];
  if (answer.status === 200 && list.some((property) => property.name === run.hostName))
    return pass(`200, ${list.length} in the list, the activated property among them`);
  return fail(
    `${answer.status}, ${list.length} properties`,
    `dynamodb:Query PARTNER#: ${grantsOf('properties')}`,
  );
}

/** The bulk of properties that makes the list large enough to compress, written once (the clean-up deletes it). */
async function withBulk(run: StageRun): Promise<void> {
  if (run.created.bulk.length === 0)
    run.created.bulk = (await addProperties(known(run.partnerId, 'partner'), BULK_PROPERTIES, 0)).keys;
}

function safeGunzip(bytes: Buffer): Buffer | undefined {
  try {
    return gunzipSync(bytes);
  } catch {
    return undefined;
  }
}

/** A list over the threshold comes gzip-compressed when asked for with JSON. */
async function gzipped(run: StageRun): Promise<Verdict> {
  await withBulk(run);
  const answer = await rawRequest(
    api(run, '/properties'),
    'GET',
    { ...withKey(run), 'Accept-Encoding': 'gzip' },
    run.context.timeoutMs,
  );
  const gunzipped = header(answer, 'content-encoding') === 'gzip' ? safeGunzip(answer.bytes) : undefined;
  if (answer.status === 200 && gunzipped && json(gunzipped))
    return pass(
      `200 gzip, ${answer.bytes.length} bytes for ${gunzipped.length} bytes of JSON (${BULK_PROPERTIES} bulk properties added)`,
    );
  return fail(
    `${answer.status}, Content-Encoding "${header(answer, 'content-encoding')}", ${gunzipped ? 'JSON' : 'not gzip JSON'}`,
    "API Gateway's binaryMediaTypes (*/*) turning the function's base64 body into bytes",
  );
}

/** The same list uncompressed (or a 406) to a client that sends no Accept header (Go's default client). */
async function withoutAccept(run: StageRun): Promise<Verdict> {
  await withBulk(run);
  const { Accept: _accept, ...headers } = withKey(run);
  const answer = await rawRequest(
    api(run, '/properties'),
    'GET',
    { ...headers, 'Accept-Encoding': 'gzip' },
    run.context.timeoutMs,
  );
  if (answer.status === 200 && header(answer, 'content-encoding') === '' && json(answer.bytes))
    return pass('200, uncompressed JSON');
  if (answer.status === 406 && problemName(answer) === 'not-acceptable')
    return pass('406 not-acceptable, saying what to send');
  return fail(
    `${answer.status}, Content-Encoding "${header(answer, 'content-encoding')}", ${json(answer.bytes) ? 'JSON' : 'not JSON'} body`,
    'the handler compressing for a request without Accept (lambdas/api/response-encoding.ts), which API Gateway may pass on as base64 text',
  );
}

/** What API Gateway answers itself: the 405 of a method the route lacks. */
async function methodNotAllowed(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(api(run, '/properties'), 'POST', withKey(run), run.context.timeoutMs);
  if (
    answer.status === 405 &&
    header(answer, 'allow') === 'GET, HEAD' &&
    problemName(answer) === 'method-not-allowed'
  )
    return pass('405 method-not-allowed, Allow: GET, HEAD');
  return fail(
    `${answer.status} ${problemName(answer)}, Allow "${header(answer, 'allow')}"`,
    'the ANY method (MOCK 405, CONVERT_TO_TEXT) of /properties',
  );
}

async function notAcceptable(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(
    api(run, '/usage'),
    'GET',
    { ...withKey(run), Accept: 'text/html' },
    run.context.timeoutMs,
  );
  if (answer.status === 406 && problemName(answer) === 'not-acceptable') return pass('406 not-acceptable');
  return fail(`${answer.status} ${problemName(answer)}`, grantsOf('usage'));
}

/**
 * A report of the test key that no published key signed: 401 invalid-signature, and the key still
 * works (the function read GitHub's published keys, found none of that identifier, evaluated nothing).
 */
async function unsignedLeakReport(run: StageRun): Promise<Verdict> {
  const key = known(run.key, 'key');
  let status: number;
  let problem: string;
  try {
    const response = await fetch(run.context.target.activationBaseUrl + SECRET_SCANNING_PATH, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Github-Public-Key-Identifier': 'npm-run-verify',
        'Github-Public-Key-Signature': Buffer.from('not a signature').toString('base64'),
      },
      body: JSON.stringify([
        { token: key, type: 'partner_api_key', url: 'https://verify.invalid/', source: 'verify' },
      ]),
      signal: AbortSignal.timeout(run.context.timeoutMs),
    });
    status = response.status;
    problem =
      String(((await response.json().catch(() => ({}))) as { type?: unknown }).type ?? '')
        .split('/')
        .pop() ?? '';
  } catch (error) {
    return fail(`no answer (${(error as Error).message})`, grantsOf(pageFunctionName('secretScanning')));
  }
  const after = await rawRequest(api(run, '/usage'), 'GET', withKey(run), run.context.timeoutMs);
  if (status === 401 && problem === 'invalid-signature' && after.status === 200)
    return pass('401 invalid-signature, and the reported key still works');
  return fail(
    `${status} ${problem}, then GET /usage ${after.status}` +
      (status === 503
        ? ' (the function could not read the stage setting secretScanningKeysUrl: its network path to GitHub)'
        : ''),
    grantsOf(pageFunctionName('secretScanning')),
  );
}

/**
 * The table's newest completed recovery point is under a day old (the daily rule's, with its start
 * window) and a completed copy job of the table's was created in that time: the backups exist, and
 * their copies reach the vault in the other region or account.
 */
/** How long a new recovery point's copy may take before the check wants that copy, not an older one's. */
const COPY_GRACE_HOURS = 2;

export async function recentCopiedBackup(backups: VerifyContext['backups']): Promise<Verdict> {
  if ('skip' in backups) return skip(backups.skip);
  const lookAt = `backup:ListRecoveryPointsByResource and backup:ListCopyJobs (your credentials); the backup-failed alarm and the FailedBackupJobsQueueUrl output; aws backup list-copy-jobs --by-resource-arn ${backups.tableArn} (a FAILED copy names its reason: the destination vault's access policy, advanced DynamoDB backup in docs/deploying.md#backups-of-the-production-table)`;
  const since = new Date(Date.now() - RECOVERY_POINT_MAX_AGE_HOURS * 3_600_000);
  const madeAt = (seconds: number | undefined) => new Date((seconds ?? 0) * 1000);
  const [newest] = (await backups.recoveryPoints())
    // AWS Backup's status of a finished recovery point (ListRecoveryPointsByResource lists both).
    .filter((point) => point.Status === 'COMPLETED' || point.Status === 'AVAILABLE')
    .sort((a, b) => (b.CreationDate ?? 0) - (a.CreationDate ?? 0));
  const hoursOld = (date: Date) => ((Date.now() - date.getTime()) / 3_600_000).toFixed(1);
  if (!newest || madeAt(newest.CreationDate) < since)
    return fail(
      newest
        ? `the newest completed recovery point is ${hoursOld(madeAt(newest.CreationDate))} h old (${newest.RecoveryPointArn})`
        : 'the table has no completed recovery point',
      lookAt,
    );
  const copies = await backups.completedCopyJobs(since);
  // The newest point's copy; while that copy may still be running (a point under COPY_GRACE_HOURS
  // old), a completed copy of the point before it.
  const copyOfNewest = copies.find((job) => job.SourceRecoveryPointArn === newest.RecoveryPointArn);
  const newestIsFresh = Date.now() - madeAt(newest.CreationDate).getTime() < COPY_GRACE_HOURS * 3_600_000;
  const copy = copyOfNewest ?? (newestIsFresh ? copies[0] : undefined);
  if (!copy)
    return fail(
      `the newest recovery point (${hoursOld(madeAt(newest.CreationDate))} h old, ${newest.RecoveryPointArn}) has no completed copy${copies.length > 0 ? ', though older ones do' : ` and no copy job of the table completed in the last ${RECOVERY_POINT_MAX_AGE_HOURS} h`}`,
      lookAt,
    );
  return pass(
    `${hoursOld(madeAt(newest.CreationDate))} h old in ${newest.BackupVaultName ?? 'the vault'}; copied to ${copy.DestinationBackupVaultArn ?? 'the other vault'} ${hoursOld(madeAt(copy.CreationDate))} h ago`,
  );
}

/** What the firewall answers itself, on a stage that has one. */
async function blockedByTheFirewall(run: StageRun): Promise<Verdict> {
  if (!run.context.firewall) return skip('the local server has no WAF');
  const answer = await rawRequest(
    api(run, `/usage?q=${encodeURIComponent(LOG4J_LOOKUP)}`),
    'GET',
    withKey(run),
    run.context.timeoutMs,
  );
  if (answer.status === 403 && problemName(answer) === 'request-blocked')
    return pass('403 request-blocked (AWSManagedRulesKnownBadInputsRuleSet)');
  return fail(
    `${answer.status} ${problemName(answer)}`,
    'the web ACL association with the stage, and the WAF_FILTERED gateway response',
  );
}

/** How long the clean-up waits for the consumer to erase the test host. */
const ERASURE_WAIT_MS = 60_000;

/**
 * Erases the test host the way the platform asks for any host's erasure (`HostErasureRequested` on
 * the stage's bus of the platform's events, applied by the consumer), so that everything of it goes,
 * here and, through the `HostErased` this service then sends, on the platform's side, which heard of
 * it by `HostProvisioned`. Only a host that this run's partner alone sponsors is erased: an erasure
 * is global, and the address could (however unlikely) be a real host's. Its id, or nothing when no
 * activation got as far as making it.
 */
async function eraseTestHost(run: StageRun, partnerId: number): Promise<number | undefined> {
  const hostId = await getHostIdByEmail(run.hostEmail);
  if (hostId === undefined) return undefined;
  const host = await getHostRecord(hostId);
  if (host?.sponsors.length !== 1 || host.sponsors[0] !== partnerId)
    throw new Error(
      `host ${hostId} has the test host's address but is sponsored by partners ${host?.sponsors.join(', ') || 'none'}, not only the test partner: not erased`,
    );
  await publishEventsFile(
    run.context.target,
    [
      {
        type: 'HostErasureRequested',
        detail: { host_user_id: hostId, requested_at: new Date().toISOString() },
      },
    ],
    Date.now(),
  );
  for (const deadline = Date.now() + ERASURE_WAIT_MS; Date.now() < deadline; ) {
    if ((await getHostStanding(hostId)) === 'erased') return hostId;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(
    `host ${hostId} was not erased within ${ERASURE_WAIT_MS / 1000} s of its HostErasureRequested (the consumer may be behind): see npm run admin -- --stage ${run.context.target.stage} events failed`,
  );
}

/**
 * Removes what the run created, so nothing of it is in use or heard of: the key revoked (its API
 * Gateway key deleted with it) and the partner suspended first, so its links and reveal pages answer
 * "not available"; the properties it wrote straight into the table deleted; and last the test host
 * erased as the platform would ask (the platform, told of it by `HostProvisioned`, is told
 * `HostErased`). Each step runs whatever the others did, and a failed one says how to finish it.
 * The partner record stays, suspended and named as test data (no other partner sees it), as do the
 * audit events (the trail is append-only).
 */
async function cleanUp(run: StageRun): Promise<Verdict> {
  const { context, created } = run;
  const partner = created.partner;
  if (!partner) return skip('nothing was created');
  const admin = `npm run admin -- --stage ${context.target.stage}`;
  const removed: string[] = [];
  const left: string[] = [];
  const step = async (what: () => Promise<string | undefined>, byHand: string) => {
    try {
      const done = await what();
      if (done) removed.push(done);
    } catch (error) {
      left.push(`${(error as Error).name}: ${(error as Error).message}; ${byHand}`);
    }
  };
  const { keyPrefix } = created;
  if (keyPrefix)
    await step(async () => {
      await revokeKey(context.target, keyPrefix, Date.now());
      return `key ${keyPrefix} revoked${context.target.usagePlanKeys ? ' and its API Gateway key deleted' : ''}`;
    }, `revoke it by hand: ${admin} keys revoke --prefix ${keyPrefix}`);
  await step(async () => {
    await suspendPartner(
      context.target,
      { slug: partner, reason: 'Deploy verification finished: test data' },
      Date.now(),
    );
    return `partner ${partner} suspended`;
  }, `suspend it by hand: ${admin} partners suspend --partner ${partner} --reason "Deploy verification test data"`);
  if (created.bulk.length > 0)
    await step(async () => {
      await deleteItems(created.bulk);
      return `${BULK_PROPERTIES} bulk properties deleted`;
    }, 'they belong to the test partner only; delete them with the next run or leave them');
  if (created.indexProperty.length > 0)
    await step(async () => {
      await deleteItems(created.indexProperty);
      return "the index check's property deleted";
    }, 'it belongs to the test partner only');
  const partnerId = run.partnerId;
  if (partnerId !== undefined)
    await step(async () => {
      const hostId = await eraseTestHost(run, partnerId);
      return hostId === undefined
        ? undefined
        : `host ${hostId} erased (HostErasureRequested; HostErased sent back)`;
    }, `erase it as the platform would: ${admin} events publish --file <a file with its HostErasureRequested> (docs/operators.md)`);
  if (left.length > 0)
    return fail(
      `${removed.length > 0 ? `${removed.join('; ')}; ` : ''}not done: ${left.join(' | ')}`,
      "your own credentials: apigateway:DELETE /apikeys/*, dynamodb:BatchWriteItem, TransactWriteItems and UpdateItem on the table, events:PutEvents on the stage's bus of the platform's events (EventBusName output)",
    );
  return pass(
    `${removed.join('; ') || 'nothing to remove'}; the partner is kept as test data (its name says so)`,
  );
}
