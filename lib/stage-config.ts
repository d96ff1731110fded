import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { GITHUB_SECRET_SCANNING_KEYS_URL } from '../core/contract/secret-scanning';
import { RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS } from '../core/domain/rate-limit';
import { EVENT_CONSUMER_CONCURRENCY } from '../core/event-delivery';
import type { RuntimeSettings } from '../core/runtime-settings';
import { RUNTIME_SETTINGS } from '../core/runtime-settings';
import type { DeployedStage } from '../core/stages';

/**
 * Everything that differs between the deployed stages (`core/stages.ts` lists them). The stack takes a
 * {@link StageConfig} as props; only `bin/` chooses which one. This module has no runtime
 * dependency on aws-cdk-lib, so the operator CLI can import the stack name and output keys.
 */

/** A token bucket: steady requests per second and the bucket size. */
interface ThrottleConfig {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface AlarmThresholds {
  /** Percentage of 5xx responses over 5 minutes, per API, that raises the alarm. */
  readonly serverErrorRatePercent: number;
  /** Below this many requests in 5 minutes the 5xx rate is not judged (one error in two requests is noise). */
  readonly serverErrorMinRequests: number;
  /** 429 responses of the pages in 5 minutes: their stage throttle, which every host shares. */
  readonly throttledRequests: number;
  /**
   * Partners answered 429 by the partner API in the same 5 minutes (callers without a key count as
   * one). One partner over its own limit is that partner's business (the dashboard shows it);
   * several at once is a throttle or a limit that everyone meets.
   */
  readonly throttledPartners: number;
  /**
   * p99 of API Gateway's `Latency` (ms) per API that, in 3 of 5 minutes, raises its latency alarm: one
   * that CodeDeploy watches, so a version that slows the API down is rolled back.
   */
  readonly latencyP99Ms: { readonly partnerApi: number; readonly pages: number };
  /** Requests refused because the authorizer failed (error, timeout, throttled) in 5 minutes. */
  readonly authorizerFailures: number;
  /** Errors (uncaught exceptions, timeouts) per function in 5 minutes (the authorizer has `authorizerFailures`). */
  readonly lambdaErrors: number;
  /**
   * Age in seconds of the oldest of the platform's events still waiting to be applied: the partners'
   * view falling behind (the consumer failing, throttled, or too few instances for the flow).
   */
  readonly oldestEventSeconds: number;
  /**
   * Failed executions and failed enrichment or target stages of the pipe that delivers this
   * service's own events, in 5 minutes. The pipe tries a failed batch again, so one failure may
   * heal by itself; many mean the platform's view of our hosts is falling behind.
   */
  readonly outboundDeliveryFailures: number;
  /**
   * p99, over 5 minutes, of the seconds from a change's commit to its event's delivery (the
   * enrichment's `OutboundLagSeconds` metric): the pipe failing, retrying, or stuck behind a batch.
   */
  readonly outboundLagSeconds: number;
}

/**
 * An X-Ray sampling rule of the stage's two API Gateway stages (account-wide rules, so each matches
 * its own stage only). Lambda functions behind API Gateway follow its decision; see docs/deploying.md.
 */
export interface TraceSampling {
  /** Share of matching requests traced once the reservoir is used up (0.01 = 1 %). */
  readonly fixedRate: number;
  /** Requests per second traced before the fixed rate applies (0: none, so low traffic is sampled at the rate too). */
  readonly reservoirPerSecond: number;
}

/**
 * AWS Backup of the table, beyond point-in-time recovery's 35 days: a daily backup kept
 * `dailyRetentionDays`, and a monthly one kept as long as the audit trail (`auditRetentionDays`), so
 * every audit event stays recoverable for its whole retention.
 */
interface TableBackup {
  readonly dailyRetentionDays: number;
}

/** Reserved concurrency (Lambda's `ReservedConcurrentExecutions`) of the functions besides the partner API's. */
interface ConcurrencyReservations {
  /** Each page function's (one per page route). */
  readonly pageFunction: number;
  /** The consumer of the platform's events: its event source mapping's maximum concurrency, set aside. */
  readonly eventConsumer: number;
  /** The outbound pipe's enrichment (one batch per stream shard at a time; an on-demand table may add shards). */
  readonly outboundEnrichment: number;
}

/**
 * How CodeDeploy moves a function's `live` alias to a new version (its predefined Lambda
 * configurations: https://docs.aws.amazon.com/codedeploy/latest/userguide/deployment-configurations.html):
 * `canary-10-percent-5-minutes` sends 10 % of invocations to the new version for 5 minutes, then
 * all; `linear-10-percent-every-1-minute` adds 10 % a minute; `all-at-once` shifts at once. The
 * stage's alarms are watched throughout, and roll the alias back when one goes red.
 */
export type TrafficShifting =
  | 'all-at-once'
  | 'canary-10-percent-5-minutes'
  | 'linear-10-percent-every-1-minute';
/** The stage's CloudWatch Synthetics canary (docs/deploying.md#the-canary). */
export interface CanarySettings {
  /** How often it calls every route (a run costs the same whatever it checks). */
  readonly everyMinutes: number;
  /** Consecutive failed runs (or runs missing) that raise its alarm: one may be a blip of the network. */
  readonly failedRunsToAlarm: number;
}

/** WAF rate-based windows (the only ones AWS WAF accepts). */
type FirewallWindowSeconds = 60 | 120 | 300 | 600;

/**
 * A per-IP limit of a web ACL: AWS WAF counts each client IP's requests over the window and
 * blocks it (429) while it is over; it applies the limit "near" the number, not exactly.
 */
export interface FirewallLimit {
  /** At least 10 (WAF's minimum). */
  readonly requests: number;
  readonly windowSeconds: FirewallWindowSeconds;
}

/**
 * The names partners and hosts meet instead of `execute-api.amazonaws.com` (which hosts take for
 * phishing): the partner API at `https://<apiDomain>/partner-api/v1`, the reveal and activation pages
 * at `https://<pagesDomain>/`, both on one ACM certificate of the stage's own region (a regional
 * custom domain's certificate must be in its API's region:
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-regional-api-custom-domain-create.html).
 * DNS stays the deployer's: a CNAME or alias record per name (docs/deploying.md#custom-domain).
 */
export interface CustomDomain {
  readonly apiDomain: string;
  readonly pagesDomain: string;
  readonly certificateArn: string;
  /**
   * Whether the `execute-api` addresses still answer beside the names. `on` until a deployer turns
   * them off (`-c executeApi:<stage>=off`) once the names' DNS records work and every partner has
   * moved: a stage deployed before it had names keeps answering where its partners call it, and a
   * new one answers while its DNS records are made (docs/deploying.md#moving-a-deployed-stage-to-its-names).
   * @default 'on'
   */
  readonly executeApi?: 'on' | 'off';
}

/** A stage's settings; those its code reads at run time are `RUNTIME_SETTINGS`'s (`core/runtime-settings.ts`). */
export interface StageConfig extends RuntimeSettings {
  readonly stage: DeployedStage;
  /**
   * Keep the table, the service secret and the log groups when the stack is deleted, and turn on
   * DynamoDB deletion protection. The secret must outlive the stack: partners' signing secrets
   * are sealed with a key derived from it.
   */
  readonly retainData: boolean;
  /** Retention of function logs and API access logs. */
  readonly logRetentionDays: RetentionDays;
  /** POWERTOOLS_LOG_LEVEL of every function. */
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Lambda's own log lines of every function (`platform.start`, `platform.report`… are INFO): WARN
   * keeps only the ones Lambda ranks as warnings, INFO adds a start and a report line per invocation.
   */
  readonly lambdaSystemLogLevel: 'INFO' | 'WARN';
  /** X-Ray sampling of the stage's APIs and functions; `account-default` leaves X-Ray's default rule in effect. */
  readonly traceSampling: TraceSampling | 'account-default';
  /**
   * Backups of the table beyond point-in-time recovery, in a vault of the stack, each copied to the
   * deployment's `backupCopyVaultArn` (required wherever there are backups).
   */
  readonly tableBackup: TableBackup | 'none';
  /**
   * The stage's monthly AWS Budgets budget in USD, over the costs that carry its `stage` tag: the
   * alarm topic hears at 80 % spent and at a forecast over 100 % (docs/deploying.md#what-it-costs-watched).
   */
  readonly monthlyBudgetUsd: number;
  /**
   * A deployment must give `alarmTopicArn` (`-c alarmTopicArn:<stage>=…`): alarms that notify nobody
   * are not watching anything.
   */
  readonly alarmTopicRequired: boolean;
  /**
   * A deployment must give `customDomain` (`-c apiDomain:<stage>=… -c pagesDomain:<stage>=…
   * -c certificateArn:<stage>=…`): links mailed to partners and shown to hosts are never
   * `execute-api.amazonaws.com` addresses.
   */
  readonly customDomainRequired: boolean;
  /**
   * Reserved concurrency of the functions that are not the partner API's: it caps each of them and
   * sets that much aside, so a flood of page requests or a backlog of events never takes the
   * capacity the partner API needs (each call runs two functions, the authorizer and the route's),
   * which uses the rest of the account's pool. `account-pool`: every function shares the pool
   * (a sandbox in a new account, whose quota may be far below the default 1,000).
   */
  readonly concurrency: ConcurrencyReservations | 'account-pool';
  /** How each deploy shifts every function's `live` alias to its new version (docs/deploying.md#safe-deployments). */
  readonly trafficShifting: TrafficShifting;
  /** Per-key throttle of the usage plan: the backstop of the exact limit in code (RATE_LIMIT). */
  readonly usagePlanThrottle: ThrottleConfig;
  /** Stage-wide throttle of the partner API (all keys together, and unauthenticated traffic). */
  readonly apiThrottle: ThrottleConfig;
  /** Stage-wide throttle of the reveal and activation pages (no API key there). */
  readonly pagesThrottle: ThrottleConfig;
  /**
   * Per-IP limits of the web ACLs in front of the two REST API stages. The API's sits well above
   * what one key may use (a partner's servers may share an address); the pages' is tight, so one
   * client cannot spend the pages' small stage throttle that every host shares.
   */
  readonly firewall: { readonly api: FirewallLimit; readonly pages: FirewallLimit };
  readonly alarms: AlarmThresholds;
  /** The canary that calls every route with a key of its own and alarms when a run fails. */
  readonly canary: CanarySettings;
  /**
   * Alarms on the burn rate of the service objectives' error budgets (lib/service-objectives.ts,
   * docs/deploying.md#service-objectives): what partners and the platform count on, judged over 30 days.
   */
  readonly objectiveAlarms: boolean;
  /**
   * SNS topic that receives alarm state changes. Created outside this stack (one per account,
   * usually with its own subscriptions). Required where `alarmTopicRequired` (production).
   * @default - alarms change state without notifying anyone
   */
  readonly alarmTopicArn?: string;
  /**
   * Sender of operator mail (reveal links): a verified SES identity in the stage's account and
   * region. Given per deployment (`-c mailFrom:<stage>=…`, see `stageConfig`), never a default.
   */
  readonly mailFrom: string;
  /**
   * Who may put the platform's events on the stage's bus besides this account's own principals:
   * AWS account ids or IAM role ARNs of the platform (`-c platformPublishers:<stage>=…`).
   * @default - this account only
   */
  readonly platformEventPublishers?: readonly string[];
  /**
   * The platform's EventBridge bus (its ARN; another account or Region allowed) that the stage's
   * outbound bus forwards this service's events to (`-c platformEventBus:<stage>=…`). Its resource
   * policy, on the platform's side, must let this stage's account put events (docs/deploying.md).
   * @default - the events stay on the stage's outbound bus
   */
  readonly platformEventBus?: string;
  /**
   * The AWS Backup vault, in another region or another account, that every recovery point of the
   * table is copied to (`-c backupCopyVaultArn:<stage>=arn:aws:backup:…:backup-vault:<name>`).
   * Required where `tableBackup` is kept (production).
   */
  readonly backupCopyVaultArn?: string;
  /**
   * Where the signing keys of secret scanning reports are published: GitHub's list, which the
   * endpoint reads (and caches) to check each report's signature (docs/deploying.md).
   */
  readonly secretScanningKeysUrl: string;
  /**
   * The stage's own names (`-c apiDomain:<stage>=… -c pagesDomain:<stage>=… -c certificateArn:<stage>=…`),
   * on which links are made; `executeApi: 'off'` turns the `execute-api` addresses off. Required where
   * `customDomainRequired` (production).
   * @default - the `execute-api.amazonaws.com` addresses of the two REST APIs
   */
  readonly customDomain?: CustomDomain;
  /**
   * `ignore` (`-c rollbackAlarms:<stage>=ignore`, for one deploy): CodeDeploy shifts without looking at
   * the alarms, so that the fix of an incident whose alarms are red can be deployed at all (a
   * deployment whose alarms are in ALARM is stopped and rolled back). docs/deploying.md#safe-deployments.
   * @default 'watch'
   */
  readonly rollbackAlarms?: 'watch' | 'ignore';
}

/** What a deployment supplies itself; everything else of a stage is in `stageSettings`. */
export interface DeploymentSettings {
  readonly mailFrom: string;
  readonly rollbackAlarms?: 'watch' | 'ignore';
  readonly alarmTopicArn?: string;
  readonly customDomain?: CustomDomain;
  readonly platformEventPublishers?: readonly string[];
  readonly platformEventBus?: string;
  readonly backupCopyVaultArn?: string;
}

/**
 * The exact limit as API Gateway's token bucket: a bucket of `limit` requests, refilled at
 * `limit / window` per second. AWS applies usage-plan throttles on a best-effort basis, so this is
 * the backstop; the exact limit is the handlers' own.
 */
const USAGE_PLAN_THROTTLE: ThrottleConfig = {
  rateLimit: RATE_LIMIT.limit / RATE_LIMIT_WINDOW_SECONDS,
  burstLimit: RATE_LIMIT.limit,
};

export const stageSettings: Readonly<Record<DeployedStage, Omit<StageConfig, keyof DeploymentSettings>>> = {
  sandbox: {
    stage: 'sandbox',
    retainData: false,
    logRetentionDays: 30,
    logLevel: 'DEBUG',
    // The report line's memory and init duration of each release are read here before production.
    lambdaSystemLogLevel: 'INFO',
    // Partners' test traffic is light: X-Ray's default (1 a second, then 5 %) traces most of it.
    traceSampling: 'account-default',
    // Test data of partners' integrations: nothing to restore.
    tableBackup: 'none',
    // Fixed about $36 a month, the canary included, and $10.72 a million calls (docs/deploying.md#what-it-costs):
    // $50 is partners' test traffic up to about 1.3 million calls; more is a loop worth hearing about.
    monthlyBudgetUsd: 50,
    alarmTopicRequired: false,
    // Partners' engineers may test against the execute-api address; a custom domain is welcome.
    customDomainRequired: false,
    // A sandbox may live in a new account, whose concurrency quota can be below what reservations need.
    concurrency: 'account-pool',
    // Partners' test traffic gives a canary too few invocations to judge; the alarms still roll back.
    trafficShifting: 'all-at-once',
    usagePlanThrottle: USAGE_PLAN_THROTTLE,
    apiThrottle: { rateLimit: 50, burstLimit: 100 },
    pagesThrottle: { rateLimit: 10, burstLimit: 20 },
    // Sandbox pages also serve partners' automated tests of their activation flow.
    firewall: { api: { requests: 1_500, windowSeconds: 300 }, pages: { requests: 100, windowSeconds: 60 } },
    alarms: {
      serverErrorRatePercent: 5,
      serverErrorMinRequests: 20,
      throttledRequests: 100,
      // Partners try their handling of 429 in the sandbox: a few at once is normal there.
      throttledPartners: 5,
      latencyP99Ms: { partnerApi: 2_000, pages: 4_000 },
      authorizerFailures: 5,
      lambdaErrors: 5,
      oldestEventSeconds: 900,
      outboundDeliveryFailures: 5,
      outboundLagSeconds: 900,
    },
    // Partners' test traffic is no objective: too thin to judge, and its bursts of errors are theirs.
    objectiveAlarms: false,
    // Partners' test stage: a failure found within half an hour is soon enough, at a third of the runs.
    canary: { everyMinutes: 15, failedRunsToAlarm: 2 },
    auditRetentionDays: RUNTIME_SETTINGS.auditRetentionDays.default,
    secretScanningKeysUrl: GITHUB_SECRET_SCANNING_KEYS_URL,
  },
  production: {
    stage: 'production',
    retainData: true,
    logRetentionDays: 365,
    logLevel: 'INFO',
    // Duration, errors and throttles are CloudWatch metrics; the per-invocation lines cost more than they tell.
    lambdaSystemLogLevel: 'WARN',
    // 1 % of requests, with no per-second reservoir that would trace nearly every call at low traffic.
    traceSampling: { fixedRate: 0.01, reservoirPerSecond: 0 },
    tableBackup: { dailyRetentionDays: 35 },
    // Fixed about $63 a month (the canary, the objectives' burn alarms and the backup copies included),
    // $5.86 a million calls: $250 is about 32 million calls, three times a 10-million month.
    monthlyBudgetUsd: 250,
    alarmTopicRequired: true,
    customDomainRequired: true,
    // Pages: the stage throttle (20 a second, bursts of 40) at a few hundred ms each needs about 12 at
    // once across all page functions. The consumer: its mapping's maximum concurrency. See
    // docs/deploying.md#concurrency for the sums against the account's pool.
    concurrency: { pageFunction: 10, eventConsumer: EVENT_CONSUMER_CONCURRENCY, outboundEnrichment: 10 },
    // 10 % of calls on the new version for 5 minutes, watched by the alarms, then all of them.
    trafficShifting: 'canary-10-percent-5-minutes',
    usagePlanThrottle: USAGE_PLAN_THROTTLE,
    apiThrottle: { rateLimit: 500, burstLimit: 1000 },
    pagesThrottle: { rateLimit: 20, burstLimit: 40 },
    // A key may use 600 requests in 5 minutes; a host's whole activation is about 15 page requests.
    firewall: { api: { requests: 3_000, windowSeconds: 300 }, pages: { requests: 60, windowSeconds: 60 } },
    alarms: {
      serverErrorRatePercent: 1,
      serverErrorMinRequests: 20,
      throttledRequests: 50,
      throttledPartners: 3,
      // A call is a few DynamoDB requests (tens of ms warm); a p99 past a second is a cold start storm or a bug.
      latencyP99Ms: { partnerApi: 1_000, pages: 2_000 },
      authorizerFailures: 1,
      lambdaErrors: 1,
      oldestEventSeconds: 300,
      outboundDeliveryFailures: 1,
      // The platform learns of a new host, a knowledge base or an erasure within 5 minutes.
      outboundLagSeconds: 300,
    },
    objectiveAlarms: true,
    // Two failed runs in a row, 10 minutes: before most partners notice, past a single network blip.
    canary: { everyMinutes: 5, failedRunsToAlarm: 2 },
    auditRetentionDays: RUNTIME_SETTINGS.auditRetentionDays.default,
    secretScanningKeysUrl: GITHUB_SECRET_SCANNING_KEYS_URL,
  },
};

/** `partners@example.com` from `Partner Team <partners@example.com>` (or the plain address). */
export function senderAddress(mailFrom: string): string {
  return (/<([^<>]+)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom).trim();
}

/** Domains reserved for documentation and tests (RFC 2606, RFC 6761): a sender there is a placeholder. */
const PLACEHOLDER_DOMAIN = /(^|\.)(example(\.(com|net|org))?|test|invalid|localhost)$/i;

/** AWS's partitions, as an ARN names them. */
const PARTITION = '(?:aws|aws-cn|aws-us-gov|aws-iso|aws-iso-[a-z]|aws-eusc)';

/** An SNS topic ARN: `arn:<partition>:sns:<region>:<account>:<name>`. */
const SNS_TOPIC_ARN = new RegExp(
  `^arn:${PARTITION}:sns:[a-z]{2}(?:-[a-z]+)+-\\d:\\d{12}:[A-Za-z0-9_-]{1,256}$`,
);

/** A publisher of the platform's events: an AWS account id (12 digits) or an IAM role ARN. */
const EVENT_PUBLISHER = new RegExp(`^(?:\\d{12}|arn:${PARTITION}:iam::\\d{12}:role/[\\w+=,.@/-]+)$`);

/** An EventBridge event bus ARN: `arn:<partition>:events:<region>:<account>:event-bus/<name>`. */
const EVENT_BUS_ARN = new RegExp(
  `^arn:${PARTITION}:events:[a-z]{2}(?:-[a-z]+)+-\\d:\\d{12}:event-bus/[/.\\-_A-Za-z0-9]{1,256}$`,
);

/**
 * An AWS Backup vault ARN, its region and account captured: a vault name is 2 to 50 letters, digits,
 * hyphens and underscores (https://docs.aws.amazon.com/aws-backup/latest/devguide/API_CreateBackupVault.html).
 */
const BACKUP_VAULT_ARN = new RegExp(
  `^arn:${PARTITION}:backup:([a-z]{2}(?:-[a-z]+)+-\\d):(\\d{12}):backup-vault:[A-Za-z0-9_-]{2,50}$`,
);

/** True when `publisher` is an account id or an IAM role ARN (the stack's bus lets it put events). */
export function isEventPublisher(publisher: string): boolean {
  return EVENT_PUBLISHER.test(publisher);
}

/** A deployment setting the app refuses: `bin/app.ts` prints its message alone, without a stack trace. */
export class StageConfigError extends Error {
  override name = 'StageConfigError';
}

/** A DNS name API Gateway takes as a custom domain: lowercase labels of letters, digits and hyphens, a TLD of letters (or an IDN's `xn--`). */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** An ACM certificate ARN: `arn:<partition>:acm:<region>:<account>:certificate/<id>`. */
const CERTIFICATE_ARN = new RegExp(
  `^arn:${PARTITION}:acm:[a-z]{2}(?:-[a-z]+)+-\\d:\\d{12}:certificate/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$`,
);

/** The three context keys of a custom domain, in the order a deployer gives them. */
export const CUSTOM_DOMAIN_KEYS = ['apiDomain', 'pagesDomain', 'certificateArn'] as const;

/**
 * A stage's custom domain from its three context values: none when none is given, refused when
 * only some are (a name without its certificate cannot be served, a certificate alone names nothing).
 */
export function customDomainOf(
  stage: DeployedStage,
  values: Readonly<Partial<Record<(typeof CUSTOM_DOMAIN_KEYS)[number], string>>>,
): CustomDomain | undefined {
  const given = CUSTOM_DOMAIN_KEYS.filter((key) => values[key] !== undefined);
  if (given.length === 0) return undefined;
  const missing = CUSTOM_DOMAIN_KEYS.filter((key) => values[key] === undefined);
  if (missing.length > 0)
    throw new StageConfigError(
      `${CUSTOM_DOMAIN_KEYS.join(', ')} of ${stage} go together: ${missing.map((key) => `-c ${key}:${stage}=…`).join(' and ')} missing (docs/deploying.md#custom-domain).`,
    );
  const { apiDomain = '', pagesDomain = '', certificateArn = '' } = values;
  return { apiDomain, pagesDomain, certificateArn };
}

/** `-c executeApi:<stage>=on|off`: anything else is refused, and it means nothing without a custom domain. */
export function withExecuteApi(
  stage: DeployedStage,
  domain: CustomDomain | undefined,
  value: string | undefined,
): CustomDomain | undefined {
  if (value === undefined) return domain;
  if (value !== 'on' && value !== 'off')
    throw new StageConfigError(`executeApi of ${stage} is on or off, not "${value}".`);
  if (!domain)
    throw new StageConfigError(
      `executeApi of ${stage} turns the execute-api addresses on or off beside a custom domain; ${stage} has none, so they are its only addresses.`,
    );
  return { ...domain, executeApi: value };
}

/** `-c rollbackAlarms:<stage>=watch|ignore`: anything else is refused. */
export function rollbackAlarmsOf(
  stage: DeployedStage,
  value: string | undefined,
): 'watch' | 'ignore' | undefined {
  if (value === undefined || value === 'watch' || value === 'ignore') return value;
  throw new StageConfigError(
    `rollbackAlarms of ${stage} is watch or ignore, not "${value}" (docs/deploying.md#safe-deployments).`,
  );
}

/** Why a custom domain cannot be deployed, or nothing. Names are taken in lowercase (DNS ignores case). */
function customDomainProblem(stage: DeployedStage, domain: CustomDomain): string | undefined {
  for (const key of ['apiDomain', 'pagesDomain'] as const) {
    const name = domain[key];
    if (!HOST_NAME.test(name))
      return `${key} of ${stage} is not a DNS name API Gateway can serve: "${name}" (lowercase labels such as api.your-domain.com, no scheme, path or wildcard).`;
    if (/(^|\.)(amazonaws\.com(\.cn)?|cloudfront\.net|on\.aws)$/.test(name))
      return `${key} of ${stage} is an AWS address ("${name}"): give a name of your own domain.`;
    if (stage === 'production' && PLACEHOLDER_DOMAIN.test(name))
      return `${key} of production is a placeholder (${name}): give the name partners and hosts will see.`;
  }
  if (domain.apiDomain === domain.pagesDomain)
    return `apiDomain and pagesDomain of ${stage} are the same name (${domain.apiDomain}): the API and the pages are two APIs, each on a name of its own.`;
  if (!CERTIFICATE_ARN.test(domain.certificateArn))
    return `certificateArn of ${stage} is not an ACM certificate ARN: "${domain.certificateArn}" (arn:aws:acm:<region>:<account>:certificate/<id>, in the stage's region).`;
  return undefined;
}

/**
 * Why the vault the table's backups are copied to cannot be it, or nothing: it must be an AWS Backup
 * vault ARN, of a stage that keeps backups, and not in the stage's own region and account, where a
 * copy dies with what it should survive. Stacks are environment-agnostic, so the stage's region and
 * account are known at synthesis only from what else the deployment gives: its certificate's region
 * (a regional custom domain takes a certificate of its API's own region:
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-custom-domains-prerequisites.html)
 * and its alarm topic's account (Budgets notifies it, and Budgets notifies a topic of its own account
 * only: https://docs.aws.amazon.com/cost-management/latest/userguide/budgets-sns-policy.html). Without
 * either, the vault is taken as given.
 */
function backupCopyProblem(
  stage: DeployedStage,
  deployment: DeploymentSettings,
  tableBackup: StageConfig['tableBackup'],
): string | undefined {
  const vault = deployment.backupCopyVaultArn;
  if (vault === undefined) return undefined;
  if (tableBackup === 'none')
    return `backupCopyVaultArn of ${stage}: ${stage} keeps no AWS Backup of its table (tableBackup in lib/stage-config.ts), so there is nothing to copy.`;
  const [, region, account] = BACKUP_VAULT_ARN.exec(vault) ?? [];
  if (!region || !account)
    return `backupCopyVaultArn of ${stage} is not an AWS Backup vault ARN: "${vault}" (arn:aws:backup:<region>:<account>:backup-vault:<name>, in another region or account).`;
  const stageRegion = deployment.customDomain?.certificateArn.split(':')[3];
  const stageAccount = deployment.alarmTopicArn?.split(':')[4];
  if (region === stageRegion && account === stageAccount)
    return `backupCopyVaultArn of ${stage} is in the stage's own region and account (${region}, ${account}: those of its certificate and alarm topic), where a copy goes with what it should survive: give a vault in another region or account (docs/deploying.md#backups-of-the-production-table).`;
  return undefined;
}

/**
 * A stage's whole configuration: its settings and what the deployment supplies. Refuses a sender
 * that is not an address, a placeholder sender in production (mail from it never arrives), an
 * alarm topic that is not an SNS topic ARN, a stage without what it requires (production: an alarm
 * topic, a custom domain and, where backups are kept, a vault to copy them to, named together in one
 * line), a custom domain that cannot be served, a platform bus that is not an event bus ARN, and a copy
 * vault that is not one or is where the stage is (`backupCopyProblem`).
 */
export function stageConfig(stage: DeployedStage, deployment: DeploymentSettings): StageConfig {
  const address = senderAddress(deployment.mailFrom);
  const domain = /^[^\s@]+@([^\s@]+\.[^\s@]+)$/.exec(address)?.[1];
  if (!domain)
    throw new StageConfigError(`mailFrom of ${stage} is not an e-mail address: "${deployment.mailFrom}".`);
  if (stage === 'production' && PLACEHOLDER_DOMAIN.test(domain))
    throw new StageConfigError(
      `mailFrom of production is a placeholder (${address}): give the verified SES sender partners mail comes from.`,
    );
  const settings = stageSettings[stage];
  const { alarmTopicArn } = deployment;
  // DNS ignores case, and a name's final dot (its fully qualified form) is the same name.
  const hostName = (name: string) => name.toLowerCase().replace(/\.$/, '');
  const customDomain = deployment.customDomain && {
    ...deployment.customDomain,
    apiDomain: hostName(deployment.customDomain.apiDomain),
    pagesDomain: hostName(deployment.customDomain.pagesDomain),
  };
  const required = [
    ...(alarmTopicArn === undefined && settings.alarmTopicRequired
      ? [`the SNS topic its alarms notify (-c alarmTopicArn:${stage}=arn:aws:sns:<region>:<account>:<topic>)`]
      : []),
    ...(customDomain === undefined && settings.customDomainRequired
      ? [
          `the names its links use, on one ACM certificate of its region (-c apiDomain:${stage}=api.<your-domain> -c pagesDomain:${stage}=<pages>.<your-domain> -c certificateArn:${stage}=arn:aws:acm:<region>:<account>:certificate/<id>)`,
        ]
      : []),
    ...(deployment.backupCopyVaultArn === undefined && settings.tableBackup !== 'none'
      ? [
          `the vault in another region or account its backups are copied to (-c backupCopyVaultArn:${stage}=arn:aws:backup:<region>:<account>:backup-vault:<name>)`,
        ]
      : []),
  ];
  if (required.length > 0)
    throw new StageConfigError(
      `${stage} needs what only a deployment can give: ${required.join('; ')}. Through npm: npm run synth -- <these flags>; with example values: npm run synth:example (docs/deploying.md#synthesize).`,
    );
  if (alarmTopicArn !== undefined && !SNS_TOPIC_ARN.test(alarmTopicArn))
    throw new StageConfigError(
      `alarmTopicArn of ${stage} is not an SNS topic ARN: "${alarmTopicArn}" (arn:aws:sns:<region>:<account>:<topic>).`,
    );
  const domainProblem = customDomain && customDomainProblem(stage, customDomain);
  if (domainProblem) throw new StageConfigError(domainProblem);
  const copyProblem = backupCopyProblem(stage, deployment, settings.tableBackup);
  if (copyProblem) throw new StageConfigError(copyProblem);
  const wrongPublisher = deployment.platformEventPublishers?.find(
    (publisher) => !isEventPublisher(publisher),
  );
  if (wrongPublisher !== undefined)
    throw new StageConfigError(
      `platformEventPublishers of ${stage} must be AWS account ids (12 digits) or IAM role ARNs: "${wrongPublisher}".`,
    );
  const { platformEventBus } = deployment;
  if (platformEventBus !== undefined && !EVENT_BUS_ARN.test(platformEventBus))
    throw new StageConfigError(
      `platformEventBus of ${stage} is not an EventBridge event bus ARN: "${platformEventBus}" (arn:aws:events:<region>:<account>:event-bus/<name>).`,
    );
  return { ...settings, ...deployment, ...(customDomain ? { customDomain } : {}) };
}

/** The CloudFormation stack of a stage; the operator CLI finds the stage by this name. */
export function stackName(stage: DeployedStage): string {
  return `PartnerApi-${stage}`;
}

/** Output keys of the stack, read by the operator CLI (`cli/deployed-target.ts`). */
export const STACK_OUTPUTS = {
  apiBaseUrl: 'ApiBaseUrl',
  activationBaseUrl: 'ActivationBaseUrl',
  tableName: 'TableName',
  sealingSecretArn: 'SealingSecretArn',
  usagePlanId: 'UsagePlanId',
  mailFrom: 'MailFrom',
  /** The partner API's access log group (`npm run admin -- traffic` queries it with Logs Insights). */
  accessLogGroupName: 'AccessLogGroupName',
  /** The managed policy to attach to operators for what the CLI reads beyond the table (access logs). */
  operatorPolicyArn: 'OperatorPolicyArn',
  /** The bus the platform publishes its events to (`events publish` sends there). */
  eventBusName: 'EventBusName',
  /** The consumer's queue (`events publish --wait` watches it) and its dead-letter queue (`events failed`). */
  platformEventsQueueUrl: 'PlatformEventsQueueUrl',
  platformEventsDeadLetterQueueUrl: 'PlatformEventsDeadLetterQueueUrl',
  /**
   * The bus this service sends its own events to (for operators, not the CLI): the platform's side
   * names it, or the stage's account, in its bus policy and rules (docs/deploying.md).
   */
  outboundEventBusName: 'OutboundEventBusName',
  outboundEventBusArn: 'OutboundEventBusArn',
  /**
   * With a custom domain, where each name's DNS record points (for operators, not the CLI): the
   * regional domain name of API Gateway (a CNAME's value, or a Route 53 alias's DNS name) and the
   * hosted zone id a Route 53 alias record names (docs/deploying.md#custom-domain).
   */
  apiDomainTarget: 'ApiDomainTarget',
  apiDomainHostedZoneId: 'ApiDomainHostedZoneId',
  pagesDomainTarget: 'PagesDomainTarget',
  pagesDomainHostedZoneId: 'PagesDomainHostedZoneId',
  /** The canary's secret, where an operator stores the canary partner's key (docs/deploying.md#the-canary). */
  canaryKeySecretArn: 'CanaryKeySecretArn',
  /** The canary's name (`aws synthetics get-canary-runs --name <it>`), for operators, not the CLI. */
  canaryName: 'CanaryName',
  /** Where the table is backed up: AWS Backup's events of failed backup jobs, for the operator who answers the alarm. */
  failedBackupJobsQueueUrl: 'FailedBackupJobsQueueUrl',
} as const;
