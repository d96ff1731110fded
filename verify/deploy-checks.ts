import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { openReveal } from '../core/contract/reveal-crypto';
import type { FunctionAccess } from '../core/routes';
import { API_BASE_PATH, partnerApiRoutes, publicApiRoutes, serviceFunctions } from '../core/routes';
import { dynamoDb, tableName } from '../lambdas/data/db';
import { propertyCreationItems } from '../lambdas/data/properties';
import { revokeKey } from '../operations/keys';
import { createActivationLink } from '../operations/links';
import { approvePartner } from '../operations/partners';
import type { OperatorTarget } from '../operations/target';
import type { AuthorizerFailureProbe } from './authorizer-failure';
import { FORCE_CHECK, forceAuthorizerFailure } from './authorizer-failure';
import { BrowserSession, fillForm, pageTitle, postFormOf } from './browser-session';
import type { RawAnswer } from './http-answers';
import {
  headDifferences,
  header,
  RATE_LIMIT_HEADERS,
  rawHeadRequest,
  rawRequest,
  revalidationDifferences,
} from './http-answers';

const run = promisify(execFile);

/** One line of the report: what was checked, how it went, and where to look when it failed. */
export interface CheckResult {
  readonly name: string;
  readonly outcome: 'PASS' | 'FAIL' | 'SKIP';
  readonly detail: string;
  /** The AWS call behind the check, and the policy statement that allows it. */
  readonly lookAt?: string;
}

export interface VerifyContext {
  readonly target: OperatorTarget;
  readonly timeoutMs: number;
  /** How long to wait for the access log to show the run's requests (delivery is asynchronous in AWS). */
  readonly trafficWaitMs: number;
  /** Whether a WAF web ACL stands in front of the APIs (deployed stages; the local server has none). */
  readonly firewall: boolean;
  /** Environment of the operator CLI runs (`audit list`, `traffic`): credentials of the operator policy, if given. */
  readonly operatorEnvironment: NodeJS.ProcessEnv;
  /** Said in the `audit list` and `traffic` lines: whose permissions those runs used. */
  readonly operatorIdentity: string;
  /** Statements of the operator policy, by command, as the stack names them. */
  readonly operatorStatements: { readonly audit: string; readonly traffic: string };
  /** What forcing an authorizer failure needs (authorizer-failure.ts), or why this run does not force one. */
  readonly authorizerFailure: AuthorizerFailureProbe | { readonly skip: string };
}

/** What the checks created, for the clean-up. */
interface Created {
  slug?: string;
  keyPrefix?: string;
  /** Items of the index check's property, written straight into the table. */
  writtenKeys: Record<string, string>[];
  /** Items of the bulk properties while they are in the table. */
  pendingBulk?: Record<string, string>[];
  /** Bulk properties written and already deleted again. */
  bulkDeleted: number;
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

/**
 * The checks that settle how AWS reads `dynamodb:LeadingKeys` for a `Query` on the global index
 * (the index's partition key, as the grants assume): one per function the route table grants an
 * index query, named by the request that makes the function query the index. They run first, right
 * after what they need (the partner, its key, the activation link), so that a deny is at the top of
 * the report. A function given `queryIndex` without a check here fails the verification's test.
 */
export const INDEX_QUERY_CHECKS: Readonly<Record<string, string>> = {
  pricingSignals: 'index query (pricingSignals): GET /properties/{id}/pricing-signals',
  marketplacePage: 'index query (marketplacePage): GET the marketplace',
  onboardingPage: 'index query (onboardingPage): GET the onboarding wizard',
};

/** The operator policy's index query (`audit list` without a partner reads the trail's index). */
export const OPERATOR_INDEX_CHECK = 'index query (OperatorPolicy): npm run admin -- audit list --since';

/** What the index checks need before them: the partner, its key, the activation and the provisioning. */
export const PREREQUISITE_CHECKS = [
  'approve a test partner',
  'reveal the key (GET and POST /reveal/{revealId})',
  'open the activation link',
  'provision the host (marketplace POST: one TransactWriteItems)',
];

/** The functions the route table grants a `Query` on the global index. */
export const functionsQueryingTheIndex = (): string[] =>
  serviceFunctions.filter((spec) => spec.access.table?.queryIndex).map((spec) => spec.name);

/** Each GET route of the API with its path filled in, and whether the partner's key goes with it. */
function getRoutes(propertyId: number): { path: string; keyed: boolean }[] {
  const fill = (path: string) => path.replace('{propertyId}', String(propertyId));
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

/** A bulk of properties big enough that its JSON crosses the compression threshold. */
const BULK_PROPERTY_NAME_LENGTH = 100;
const BULK_PROPERTIES = 2_400;

/**
 * The deploy verification: every call whose IAM policy or API Gateway behaviour no local test can
 * prove, made for real against a stage, with a throw-away test partner. Each check says which AWS
 * call it makes and which statement allows it, so a failure points at the statement to fix.
 */
export async function verifyStage(
  context: VerifyContext,
  log: (result: CheckResult) => void,
): Promise<CheckResult[]> {
  const { target, timeoutMs } = context;
  const results: CheckResult[] = [];
  const record = (result: CheckResult) => {
    results.push(result);
    log(result);
    return result.outcome !== 'FAIL';
  };
  const fail = (name: string, detail: string, lookAt: string) =>
    record({ name, outcome: 'FAIL', detail, lookAt });
  const pass = (name: string, detail: string) => record({ name, outcome: 'PASS', detail });
  /** A page that shows its form read the product catalog through the global index (its grant). */
  const catalogReadThroughIndex = (
    functionName: 'marketplacePage' | 'onboardingPage',
    page: { status: number; html: string },
  ) => {
    const name = INDEX_QUERY_CHECKS[functionName] ?? '';
    if (page.status === 200 && postFormOf(page.html))
      pass(name, `200, "${pageTitle(page.html)}": the catalog read through the index`);
    else
      fail(
        name,
        `${page.status} ${pageTitle(page.html)}`,
        `dynamodb:Query on the index with LeadingKeys PRODUCTS: ${grantsOf(functionName)}`,
      );
  };
  const created: Created = { writtenKeys: [], bulkDeleted: 0 };
  const api = (path: string) => `${target.apiBaseUrl}${path}`;

  try {
    // 1. An approved test partner with its first key, as `partners approve` makes one (no mail).
    const runStartedAt = new Date().toISOString();
    const stamp = runStartedAt.replace(/\D/g, '').slice(0, 14);
    const slug = `verify-${stamp}-${randomBytes(2).toString('hex')}`;
    const approval = await approvePartner(
      target,
      {
        name: `Deploy verification ${stamp} (test data)`,
        slug,
        email: `deploy-verification@${slug}.example.com`,
        products: ['assistant', 'upsells'],
        scopes: ['revenue:read'],
      },
      Date.now(),
    ).then(
      (value) => value,
      (error: unknown) => error as Error,
    );
    if (approval instanceof Error) {
      fail(
        'approve a test partner',
        `${approval.name}: ${approval.message}`,
        'your own credentials: dynamodb:TransactWriteItems on the table, secretsmanager:GetSecretValue on the sealing secret, apigateway:POST /apikeys and /usageplans/*/keys',
      );
      return results;
    }
    const partnerId = approval.result.partner_id;
    created.slug = slug;
    created.keyPrefix = approval.result.key_prefix;
    pass('approve a test partner', `${slug} (partner ${partnerId}), key ${approval.result.key_prefix}`);

    // 2. The one-time reveal, as the page's script does it.
    const [revealPage = '', fragmentSecret = ''] = approval.result.reveal_url.split('#');
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
    if (revealGet.status !== 200 || revealPost.status !== 200 || !sealed.iv || !sealed.ciphertext) {
      fail(
        'reveal the key (GET and POST /reveal/{revealId})',
        `GET ${revealGet.status}, POST ${revealPost.status}`,
        `dynamodb:GetItem, UpdateItem REVEAL# and PutItem AUDIT#: ${grantsOf('revealPage')}`,
      );
      return results;
    }
    const key = openReveal({ fragmentSecret, iv: sealed.iv, ciphertext: sealed.ciphertext });
    pass(
      'reveal the key (GET and POST /reveal/{revealId})',
      'GET 200, POST 200, key decrypted in the client',
    );
    const withKey = { Authorization: `Bearer ${key}`, Accept: 'application/json' };

    // 3. First, the index queries (INDEX_QUERY_CHECKS): how AWS reads LeadingKeys on the index is
    // what no simulator settles. A property of the test partner, written straight into the table,
    // lets pricing signals run before any activation. A new API Gateway key can take a few seconds
    // to reach the usage plan, so a deployed stage gets a minute to accept it.
    const indexProperty = await addProperties(partnerId, 1, BULK_PROPERTIES);
    created.writtenKeys.push(...indexProperty.keys);
    const [propertyId = 0] = indexProperty.ids;
    const signalsPath = `/properties/${propertyId}/pricing-signals?lookback_days=30`;
    const keyDeadline = Date.now() + (target.usagePlanKeys ? 60_000 : 0);
    let signals = await rawRequest(api(signalsPath), 'GET', withKey, timeoutMs);
    while (signals.status !== 200 && Date.now() < keyDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      signals = await rawRequest(api(signalsPath), 'GET', withKey, timeoutMs);
    }
    if (signals.status === 200 && json(signals.bytes)?.signals)
      pass(
        INDEX_QUERY_CHECKS.pricingSignals ?? '',
        `200 for property ${propertyId}: bookings read through the index`,
      );
    else
      fail(
        INDEX_QUERY_CHECKS.pricingSignals ?? '',
        `${signals.status} ${problemName(signals) || header(signals, 'x-amzn-errortype')}`,
        `dynamodb:Query on the index with LeadingKeys PROPERTY# (the index's partition key): ${grantsOf('pricingSignals')}; the authorizer and the usage plan key if /usage fails too`,
      );
    await auditIndexCheck(context, runStartedAt, slug, record);

    const hostName = `Verification host ${stamp}`;
    const link = await createActivationLink(
      target,
      {
        slug,
        email: `host-${stamp}@${slug}.example.com`,
        name: hostName,
        pmsHotelId: `VERIFY-${stamp}`,
        products: ['assistant', 'upsells'],
        ttlSeconds: 900,
      },
      Date.now(),
    );
    const browser = new BrowserSession(timeoutMs);
    const activate = await browser.open(link.url);
    if (activate.status !== 303 || !activate.location) {
      fail(
        'open the activation link',
        `${activate.status} ${pageTitle(activate.html)}`,
        `dynamodb:GetItem PARTNERSLUG#, PARTNER#, SIGNING_SECRET#, ACTIVATION_LINK#, NONCE# and both secrets: ${grantsOf('activatePage')}`,
      );
    } else {
      pass('open the activation link', '303 to the marketplace, session cookie set');
      const marketplace = await browser.open(activate.location);
      const form = postFormOf(marketplace.html);
      catalogReadThroughIndex('marketplacePage', marketplace);
      const provisioned = form
        ? await browser.open(new URL(form.action, marketplace.url).toString(), {
            method: 'POST',
            body: fillForm(form, 'Deploy verification'),
          })
        : undefined;
      if (provisioned?.status !== 303 || !provisioned.location)
        fail(
          'provision the host (marketplace POST: one TransactWriteItems)',
          `marketplace ${marketplace.status}, POST ${provisioned?.status ?? '-'} ${pageTitle(provisioned?.html ?? marketplace.html)}`,
          `dynamodb:TransactWriteItems, evaluated per item (Put, Update, ConditionCheck with LeadingKeys): ${grantsOf('marketplacePage')}`,
        );
      else {
        pass('provision the host (marketplace POST: one TransactWriteItems)', '303 to the onboarding wizard');
        let page = await browser.open(provisioned.location);
        catalogReadThroughIndex('onboardingPage', page);
        let steps = 0;
        let stuck: string | undefined;
        for (let form = postFormOf(page.html); form && steps < 10; form = postFormOf(page.html)) {
          steps += 1;
          const submitted = await browser.open(new URL(form.action, page.url).toString(), {
            method: 'POST',
            body: fillForm(form, 'Deploy verification test data'),
          });
          if (submitted.status !== 303 || !submitted.location) {
            stuck = `step ${steps}: ${submitted.status} ${pageTitle(submitted.html)}`;
            break;
          }
          page = await browser.open(submitted.location);
        }
        if (!stuck && page.status === 200 && !postFormOf(page.html))
          pass('complete the onboarding wizard', `${steps} steps, ends on "${pageTitle(page.html)}"`);
        else
          fail(
            'complete the onboarding wizard',
            stuck ?? `${page.status} ${pageTitle(page.html)}`,
            `dynamodb:GetItem, Query, UpdateItem PARTNER#, PROPERTY# and PutItem AUDIT#: ${grantsOf('onboardingPage')}`,
          );
      }
    }

    // 4. The authorizer's key read and the limiter's write.
    const usage = await rawRequest(api('/usage'), 'GET', withKey, timeoutMs);
    if (
      usage.status === 200 &&
      header(usage, 'ratelimit').includes('r=') &&
      json(usage.bytes)?.partner_id !== undefined
    )
      pass('GET /usage: authorizer key read, limiter write', `200, ${header(usage, 'ratelimit')}`);
    else
      fail(
        'GET /usage: authorizer key read, limiter write',
        `${usage.status} ${problemName(usage) || header(usage, 'x-amzn-errortype')}`,
        `dynamodb:GetItem APIKEY# (${grantsOf('authorizer')}); dynamodb:Query and UpdateItem (${grantsOf('usage')}); the usage plan key (apiKeySource AUTHORIZER)`,
      );

    // 5. HEAD on every GET route: the GET's status and headers, no body. Then If-None-Match with the
    // tag of an answer: a 304 with no body that still carries the rate-limit headers.
    for (const route of getRoutes(propertyId)) {
      const headers = route.keyed ? withKey : { Accept: 'application/json' };
      const get = await rawRequest(api(route.path), 'GET', headers, timeoutMs);
      const head = await rawHeadRequest(api(route.path), headers, timeoutMs);
      const differences = get.status === 200 ? headDifferences(get, head) : [`GET ${get.status}`];
      if (differences.length === 0)
        pass(
          `HEAD ${route.path}`,
          `${head.status}, no body, the GET's headers (${Object.keys(head.headers)
            .filter((name) => ['etag', 'content-type', 'cache-control', ...RATE_LIMIT_HEADERS].includes(name))
            .join(', ')})`,
        );
      else
        fail(
          `HEAD ${route.path}`,
          differences.join('; '),
          `the HEAD method of ${API_BASE_PATH}${route.path} (API Gateway strips the body of a HEAD answer; the handler answers it as a GET)`,
        );
    }
    for (const route of getRoutes(propertyId).filter((candidate) => candidate.keyed)) {
      const get = await rawRequest(api(route.path), 'GET', withKey, timeoutMs);
      const tag = header(get, 'etag');
      const revalidated = tag
        ? await rawRequest(api(route.path), 'GET', { ...withKey, 'If-None-Match': tag }, timeoutMs)
        : undefined;
      const differences = !tag
        ? [`GET ${get.status} without an ETag`]
        : revalidated
          ? revalidationDifferences(get, revalidated)
          : [];
      if (differences.length === 0)
        pass(
          `GET ${route.path}, If-None-Match: its ETag`,
          `304, no body, ETag and ${header(revalidated ?? get, 'ratelimit')}`,
        );
      else
        fail(
          `GET ${route.path}, If-None-Match: its ETag`,
          differences.join('; '),
          "the handler's conditional answer (lambdas/api/middleware.ts) and API Gateway's Lambda proxy passing a 304 and its headers on",
        );
    }

    // 6. An authorizer failure, forced for real, and counted by the answered-5xx metric filter.
    if ('skip' in context.authorizerFailure)
      record({ name: FORCE_CHECK, outcome: 'SKIP', detail: context.authorizerFailure.skip });
    else
      for (const result of await forceAuthorizerFailure(
        context.authorizerFailure,
        target.apiBaseUrl,
        timeoutMs,
      ))
        record(result);

    // 7. The partner's properties.
    const properties = await rawRequest(api('/properties'), 'GET', withKey, timeoutMs);
    const list = (json(properties.bytes)?.properties ?? []) as { id: number; name: string }[];
    if (properties.status === 200 && list.some((property) => property.name === hostName))
      pass('GET /properties', `200, ${list.length} in the list, the activated property among them`);
    else
      fail(
        'GET /properties',
        `${properties.status}, ${list.length} properties`,
        `dynamodb:Query PARTNER#: ${grantsOf('properties')}`,
      );

    // 8. Compression: a list over the threshold comes gzip-compressed when asked for with JSON,
    // and uncompressed to a client that sends no Accept header (Go's default client).
    const bulk = await addProperties(partnerId, BULK_PROPERTIES, 0);
    created.pendingBulk = bulk.keys;
    const gzipped = await rawRequest(
      api('/properties'),
      'GET',
      { ...withKey, 'Accept-Encoding': 'gzip' },
      timeoutMs,
    );
    const gunzipped = header(gzipped, 'content-encoding') === 'gzip' ? safeGunzip(gzipped.bytes) : undefined;
    if (gzipped.status === 200 && gunzipped && json(gunzipped))
      pass(
        'GET /properties, Accept: application/json and Accept-Encoding: gzip',
        `200 gzip, ${gzipped.bytes.length} bytes for ${gunzipped.length} bytes of JSON (${BULK_PROPERTIES} bulk properties added)`,
      );
    else
      fail(
        'GET /properties, Accept: application/json and Accept-Encoding: gzip',
        `${gzipped.status}, Content-Encoding "${header(gzipped, 'content-encoding')}", ${gunzipped ? 'JSON' : 'not gzip JSON'}`,
        "API Gateway's binaryMediaTypes (*/*) turning the function's base64 body into bytes",
      );
    const { Accept: _accept, ...withoutAccept } = withKey;
    const noAccept = await rawRequest(
      api('/properties'),
      'GET',
      { ...withoutAccept, 'Accept-Encoding': 'gzip' },
      timeoutMs,
    );
    if (noAccept.status === 200 && header(noAccept, 'content-encoding') === '' && json(noAccept.bytes))
      pass(
        "GET /properties, Accept-Encoding: gzip and no Accept (Go's default client)",
        '200, uncompressed JSON',
      );
    else if (noAccept.status === 406 && problemName(noAccept) === 'not-acceptable')
      pass(
        "GET /properties, Accept-Encoding: gzip and no Accept (Go's default client)",
        '406 not-acceptable, saying what to send',
      );
    else
      fail(
        "GET /properties, Accept-Encoding: gzip and no Accept (Go's default client)",
        `${noAccept.status}, Content-Encoding "${header(noAccept, 'content-encoding')}", ${json(noAccept.bytes) ? 'JSON' : 'not JSON'} body`,
        'the handler compressing for a request without Accept (lambdas/api/response-encoding.ts), which API Gateway may pass on as base64 text',
      );
    await deleteItems(bulk.keys);
    created.pendingBulk = [];
    created.bulkDeleted = BULK_PROPERTIES;

    // 9. What API Gateway and the firewall answer themselves.
    const post = await rawRequest(api('/properties'), 'POST', withKey, timeoutMs);
    if (
      post.status === 405 &&
      header(post, 'allow') === 'GET, HEAD' &&
      problemName(post) === 'method-not-allowed'
    )
      pass('POST /properties', '405 method-not-allowed, Allow: GET, HEAD');
    else
      fail(
        'POST /properties',
        `${post.status} ${problemName(post)}, Allow "${header(post, 'allow')}"`,
        'the ANY method (MOCK 405, CONVERT_TO_TEXT) of /properties',
      );
    const html = await rawRequest(api('/usage'), 'GET', { ...withKey, Accept: 'text/html' }, timeoutMs);
    if (html.status === 406 && problemName(html) === 'not-acceptable')
      pass('GET /usage, Accept: text/html', '406 not-acceptable');
    else fail('GET /usage, Accept: text/html', `${html.status} ${problemName(html)}`, grantsOf('usage'));
    if (!context.firewall) {
      record({
        name: 'a request the WAF managed rules block',
        outcome: 'SKIP',
        detail: 'the local server has no WAF',
      });
    } else {
      const blocked = await rawRequest(
        api(`/usage?q=${encodeURIComponent(LOG4J_LOOKUP)}`),
        'GET',
        withKey,
        timeoutMs,
      );
      if (blocked.status === 403 && problemName(blocked) === 'request-blocked')
        pass(
          'a request the WAF managed rules block',
          '403 request-blocked (AWSManagedRulesKnownBadInputsRuleSet)',
        );
      else
        fail(
          'a request the WAF managed rules block',
          `${blocked.status} ${problemName(blocked)}`,
          'the web ACL association with the stage, and the WAF_FILTERED gateway response',
        );
    }

    // 10. The operator CLI's reads: one partner's audit trail, and traffic (Logs Insights).
    const audit = await operatorCli(context, ['audit', 'list', '--partner', slug, '--limit', '50']);
    const actions = new Set(
      ((audit.json?.events ?? []) as { action: string }[]).map((event) => event.action),
    );
    const expected = ['partner.approved', 'key.revealed', 'link.created'];
    if (audit.code === 0 && expected.every((action) => actions.has(action)))
      pass(
        'npm run admin -- audit list --partner',
        `${actions.size} kinds of event (${context.operatorIdentity})`,
      );
    else
      fail(
        'npm run admin -- audit list --partner',
        audit.code === 0
          ? `missing ${expected.filter((action) => !actions.has(action)).join(', ')}`
          : audit.error,
        `dynamodb:GetItem PARTNERSLUG# and Query AUDIT# with LeadingKeys (${context.operatorStatements.audit}; ${context.operatorIdentity})`,
      );
    const trafficDeadline = Date.now() + context.trafficWaitMs;
    let traffic = await operatorCli(context, ['traffic', '--partner', slug, '--days', '1']);
    const counted = () =>
      ((traffic.json?.days ?? []) as { requests: number }[]).reduce((sum, day) => sum + day.requests, 0);
    while (traffic.code === 0 && counted() === 0 && Date.now() < trafficDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      traffic = await operatorCli(context, ['traffic', '--partner', slug, '--days', '1']);
    }
    if (traffic.code === 0 && counted() > 0)
      pass(
        'npm run admin -- traffic',
        `${counted()} requests of the test partner counted (${context.operatorIdentity})`,
      );
    else
      fail(
        'npm run admin -- traffic',
        traffic.code === 0
          ? `the query ran but counted nothing within ${context.trafficWaitMs / 1000} s (access-log delivery can lag: rerun "npm run admin -- traffic --partner ${slug}")`
          : traffic.error,
        `logs:StartQuery and logs:GetQueryResults on the access log group (${context.operatorStatements.traffic}; ${context.operatorIdentity})`,
      );
  } catch (error) {
    const { name, message } = error as Error;
    fail('the run itself', `${name}: ${message}`, 'the network path to the stage, or your credentials');
  } finally {
    await cleanUp(context, created, record);
  }
  return results;
}

/**
 * The operator's index query: `audit list` without a partner reads the whole trail through the
 * index (LeadingKeys AUDIT), here since the run started and for approvals only; the test partner's
 * approval must be in it. The index is updated asynchronously, so it gets a few tries.
 */
async function auditIndexCheck(
  context: VerifyContext,
  since: string,
  slug: string,
  record: (result: CheckResult) => boolean,
): Promise<void> {
  const args = ['audit', 'list', '--since', since, '--action', 'partner.approved', '--limit', '200'];
  let audit = await operatorCli(context, args);
  const events = () => (audit.json?.events ?? []) as { partner?: string }[];
  const found = () => events().some((event) => event.partner === slug);
  for (let attempt = 1; audit.code === 0 && !found() && attempt < 5; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    audit = await operatorCli(context, args);
  }
  if (audit.code === 0 && found())
    record({
      name: OPERATOR_INDEX_CHECK,
      outcome: 'PASS',
      detail: `the test partner's approval among ${events().length} since the run started (${context.operatorIdentity})`,
    });
  else
    record({
      name: OPERATOR_INDEX_CHECK,
      outcome: 'FAIL',
      detail: audit.code === 0 ? `the approval of ${slug} is not in the trail's index` : audit.error,
      lookAt: `dynamodb:Query on the index with LeadingKeys AUDIT (${context.operatorStatements.audit}; ${context.operatorIdentity})`,
    });
}

function safeGunzip(bytes: Buffer): Buffer | undefined {
  try {
    return gunzipSync(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Writes properties of the test partner straight into the table (ids from `firstIndex` on): one for
 * the index check before any activation, and a bulk big enough to cross the compression threshold.
 */
async function addProperties(
  partnerId: number,
  count: number,
  firstIndex: number,
): Promise<{ ids: number[]; keys: Record<string, string>[] }> {
  const ids = Array.from(
    { length: count },
    // Far above any id the counter gives out, and within sortableId's 12 digits.
    (_, index) => 800_000_000_000 + (partnerId % 10_000) * 10_000 + firstIndex + index,
  );
  const items = ids
    .flatMap((id, index) =>
      propertyCreationItems({
        id,
        partnerId,
        hostUserId: 0,
        name: `Deploy verification property ${firstIndex + index} (test data) `.padEnd(
          BULK_PROPERTY_NAME_LENGTH,
          '.',
        ),
        units: 1,
        pmsHotelId: `VERIFY-BULK-${firstIndex + index}`,
        createdAt: new Date().toISOString(),
      }),
    )
    .flatMap((item) => (item.Put ? [item.Put.Item as Record<string, unknown>] : []));
  await batchWrite(items.map((item) => ({ PutRequest: { Item: item } })));
  return { ids, keys: items.map((item) => ({ PK: String(item.PK), SK: String(item.SK) })) };
}

async function deleteItems(keys: readonly Record<string, string>[]): Promise<void> {
  await batchWrite(keys.map((key) => ({ DeleteRequest: { Key: key } })));
}

type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, string> } };

/** BatchWriteItem 25 at a time, a few batches in flight, retrying what DynamoDB leaves unprocessed. */
async function batchWrite(requests: readonly WriteRequest[]): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += 25) batches.push(requests.slice(start, start + 25));
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let pending: WriteRequest[] = batch;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt > 0)
          await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt * 50, 2_000)));
        const { UnprocessedItems } = await dynamoDb().send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
        );
        pending = (UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

/** Runs the operator CLI as operators do (`npm run admin`), with the operator policy's credentials when given. */
async function operatorCli(
  context: VerifyContext,
  args: string[],
): Promise<{ code: number; json?: Record<string, unknown>; error: string }> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', '--stage', context.target.stage, ...args, '--json'],
      { env: context.operatorEnvironment, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, json: JSON.parse(stdout) as Record<string, unknown>, error: '' };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string; message: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      error: (failed.stderr || failed.message).trim().split('\n')[0] ?? '',
    };
  }
}

/**
 * Removes what the run created that could do harm or cost: the key is revoked (its API Gateway
 * key deleted with it) and the properties it wrote straight into the table deleted. The partner, its host, property and seats
 * stay, named as test data, as do the audit events (the trail is append-only).
 */
async function cleanUp(context: VerifyContext, created: Created, record: (result: CheckResult) => boolean) {
  const removed: string[] = created.bulkDeleted > 0 ? [`${created.bulkDeleted} bulk properties deleted`] : [];
  try {
    if (created.pendingBulk && created.pendingBulk.length > 0) {
      await deleteItems(created.pendingBulk);
      removed.push(`${BULK_PROPERTIES} bulk properties deleted`);
    }
    if (created.writtenKeys.length > 0) {
      await deleteItems(created.writtenKeys);
      removed.push(`the index check's property deleted`);
    }
    if (created.keyPrefix) {
      await revokeKey(context.target, created.keyPrefix, Date.now());
      removed.push(
        `key ${created.keyPrefix} revoked${context.target.usagePlanKeys ? ' and its API Gateway key deleted' : ''}`,
      );
    }
    if (removed.length > 0 || created.slug)
      record({
        name: 'clean up',
        outcome: 'PASS',
        detail: `${removed.join('; ') || 'nothing to remove'}${created.slug ? `; partner ${created.slug} stays as test data (its name says so)` : ''}`,
      });
  } catch (error) {
    record({
      name: 'clean up',
      outcome: 'FAIL',
      detail: `${(error as Error).name}: ${(error as Error).message}${created.keyPrefix ? `; revoke it by hand: npm run admin -- --stage ${context.target.stage} keys revoke --prefix ${created.keyPrefix}` : ''}`,
      lookAt:
        'your own credentials: dynamodb:BatchWriteItem and UpdateItem on the table, apigateway:DELETE /apikeys/*',
    });
  }
}
