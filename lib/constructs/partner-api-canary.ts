import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Canary, Code, Runtime, Schedule, Test } from 'aws-cdk-lib/aws-synthetics';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { CANARY_ENVIRONMENT } from '../../core/canary';
import type { CanarySettings } from '../stage-config';
import { acknowledgeGuardFinding, acknowledgeNagFinding } from './nag';

const CANARY_ENTRY = fileURLToPath(new URL('../../lambdas/canary/handler.ts', import.meta.url));

/** The script's file name in the package, and so the handler's (`<file>.handler`). */
const SCRIPT = 'partner-api-canary';

/**
 * The newest Node.js runtime aws-cdk-lib names (syn-nodejs-puppeteer-13.0: Lambda's Node.js 22.x). The
 * browserless syn-nodejs-3.x runs on Node.js 20.x, which Lambda deprecates; the script needs no more than
 * Node's `fetch`, and never opens the browser.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Synthetics_Library_nodejs_puppeteer.html
 */
export const CANARY_RUNTIME = Runtime.SYNTHETICS_NODEJS_PUPPETEER_13_0;

/** How long Synthetics keeps the record of a run, and S3 its artifacts (logs, the step report). */
const SUCCESS_RETENTION_DAYS = 7;
const FAILURE_RETENTION_DAYS = 31;

export interface PartnerApiCanaryProps {
  /** The canary's name (lowercase letters, digits, hyphens), e.g. `partner-api-sandbox`. */
  readonly canaryName: string;
  /** The partner API's base URL, ending in /partner-api/v1. */
  readonly baseUrl: string;
  readonly settings: CanarySettings;
  /** Of the secret: a retained stage keeps the key the operator stored. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The stage's CloudWatch Synthetics canary: every `everyMinutes` it calls each route of the partner
 * API with a key of its own, kept in its own secret, and checks status, body and rate-limit headers
 * (lambdas/canary/). Its script is bundled here with esbuild, at synthesis, into the layout the
 * puppeteer runtimes load (`nodejs/node_modules/<file>.js`). It adds no Lambda function to the
 * template: Synthetics makes the canary's function itself, and deletes it with the canary.
 */
export class PartnerApiCanary extends Construct {
  public readonly canary: Canary;
  /** `{"key":"svc_…"}`: empty until an operator stores the canary partner's key (docs/deploying.md#the-canary). */
  public readonly keySecret: Secret;
  public readonly artifactsBucket: Bucket;
  /** Consecutive failed runs that raise the alarm. */
  public readonly failedRunsToAlarm: number;
  private readonly period: Duration;

  constructor(scope: Construct, id: string, props: PartnerApiCanaryProps) {
    super(scope, id);
    this.period = Duration.minutes(props.settings.everyMinutes);
    this.failedRunsToAlarm = props.settings.failedRunsToAlarm;
    this.keySecret = this.secret(props);
    this.artifactsBucket = this.bucket();
    const scriptDirectory = bundleScript();
    try {
      this.canary = new Canary(this, 'Canary', {
        canaryName: props.canaryName,
        runtime: CANARY_RUNTIME,
        test: Test.custom({ code: Code.fromAsset(scriptDirectory), handler: `${SCRIPT}.handler` }),
        schedule: Schedule.rate(this.period),
        // A run takes a few seconds; a hung one ends well before the next.
        timeout: Duration.minutes(1),
        environmentVariables: {
          [CANARY_ENVIRONMENT.baseUrl]: props.baseUrl,
          [CANARY_ENVIRONMENT.secretArn]: this.keySecret.secretArn,
        },
        artifactsBucketLocation: { bucket: this.artifactsBucket },
        successRetentionPeriod: Duration.days(SUCCESS_RETENTION_DAYS),
        failureRetentionPeriod: Duration.days(FAILURE_RETENTION_DAYS),
        // Synthetics deletes the function and layer it made when the canary is deleted (no custom resource).
        provisionedResourceCleanup: true,
        startAfterCreation: true,
      });
    } finally {
      // Staged into the cloud assembly when the canary bound its code: the temporary copy can go.
      rmSync(scriptDirectory, { recursive: true, force: true });
    }
    this.grantKeyRead();
  }

  /** The share of runs that passed, per period of the schedule (one run each): 100 or 0. */
  public metricSuccessPercent(): Metric {
    return this.canary.metricSuccessPercent({ statistic: Stats.AVERAGE, period: this.period });
  }

  /** How long each run took (all steps), per period of the schedule. */
  public metricDuration(): Metric {
    return this.canary.metricDuration({ statistic: Stats.MAXIMUM, period: this.period });
  }

  /** Generated empty at deploy time (`{"key":""}` and a filler): no key is ever in the template. */
  private secret(props: PartnerApiCanaryProps): Secret {
    const secret = new Secret(this, 'KeySecret', {
      description: `The partner API canary's key (${props.canaryName}); stored by an operator, docs/deploying.md#the-canary`,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ key: '' }),
        generateStringKey: 'unused',
        passwordLength: 8,
        excludePunctuation: true,
      },
      removalPolicy: props.removalPolicy,
    });
    acknowledgeNagFinding(
      secret,
      'SMG4',
      "The canary's key is a partner API key: Secrets Manager cannot issue one. An operator replaces it with " +
        '`keys rotate --partner <canary partner>` and stores the revealed key (docs/deploying.md#the-canary).',
    );
    return secret;
  }

  /**
   * Run records and artifacts of the canary: SSE-KMS with S3's AWS managed key (no key of our own to
   * pay for or lose; a bucket key keeps KMS requests few), TLS only, no public access, each object deleted
   * after the longest time Synthetics keeps a run. Retained with the stack: CloudFormation cannot
   * delete a bucket that holds objects, and emptying it on deletion needs a custom resource (a Lambda
   * function) the stack does without; the lifecycle empties it within a month.
   */
  private bucket(): Bucket {
    const bucket = new Bucket(this, 'Artifacts', {
      encryption: BucketEncryption.KMS_MANAGED,
      bucketKeyEnabled: true,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          expiration: Duration.days(FAILURE_RETENTION_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledgeNagFinding(
      bucket,
      'S1',
      "The canary's run artifacts (its log and step report, written by the canary's own role) are the only " +
        'objects; server access logs would need a second bucket of their own, and CloudTrail already records who ' +
        'reads the bucket.',
    );
    acknowledgeGuardFinding(
      bucket,
      's3_bucket_logging_enabled_check',
      "The canary's run artifacts are the only objects, written by its own role: access logs would need a second " +
        'bucket (with the same finding) to record reads CloudTrail can already record.',
    );
    acknowledgeGuardFinding(
      bucket,
      's3_bucket_versioning_enabled_check',
      'Each run writes new objects that nothing overwrites, and the lifecycle deletes them after a month on ' +
        'purpose: versions would only keep deleted run artifacts longer.',
    );
    acknowledgeGuardFinding(
      bucket,
      's3_bucket_object_lock_enabled_check',
      "Object Lock would stop the lifecycle from deleting a run's artifacts: they are diagnostics kept a month, " +
        'not records that must outlive a deletion.',
    );
    acknowledgeGuardFinding(
      bucket,
      's3_event_notifications_enabled_check',
      'Nothing acts on a new artifact: the canary publishes its outcome as CloudWatch metrics, which the alarm ' +
        'and the dashboard read.',
    );
    return bucket;
  }

  /** The canary's role reads its own secret, and nothing else of the stage. */
  private grantKeyRead(): void {
    this.canary.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.keySecret.secretArn],
      }),
    );
    // What AWS documents a canary's role needs, which the construct's own role holds and no more:
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Synthetics_Canaries_Roles.html
    const role = this.canary.role;
    const bucketId = Stack.of(this).getLogicalId(this.artifactsBucket.node.defaultChild as CfnBucket);
    acknowledgeNagFinding(
      role,
      'IAM5[Resource::*]',
      's3:ListAllMyBuckets and cloudwatch:PutMetricData have no resource type: AWS documents both for a canary ' +
        "role, and PutMetricData is limited to Synthetics' namespace (cloudwatch:namespace CloudWatchSynthetics).",
    );
    acknowledgeNagFinding(
      role,
      `IAM5[Resource::<${bucketId}.Arn>/*]`,
      "The canary writes each run's artifacts under a key Synthetics chooses, in the stack's own artifacts bucket " +
        'only (s3:PutObject; nothing reads or deletes there).',
    );
    acknowledgeNagFinding(
      role,
      'IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/cwsyn-*]',
      'Synthetics names the function it makes for the canary cwsyn-<name>-<id> when it creates it, so its log ' +
        'group is known only by that prefix (the one AWS documents for a canary role).',
    );
  }
}

/**
 * The canary's script, bundled by esbuild into a temporary directory in the layout the puppeteer
 * runtimes load: one CommonJS file with its dependencies (zod, the AWS SDK's Secrets Manager client),
 * the runtime's own Synthetics library left to its layer.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Synthetics_Canaries_WritingCanary_Nodejs_Pup.html
 */
function bundleScript(): string {
  const directory = mkdtempSync(join(tmpdir(), 'partner-api-canary-'));
  buildSync({
    entryPoints: [CANARY_ENTRY],
    outfile: join(directory, 'nodejs', 'node_modules', `${SCRIPT}.js`),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    mainFields: ['module', 'main'],
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
  });
  return directory;
}
