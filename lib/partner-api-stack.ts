import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { OUTBOX_SUMMARY_ATTRIBUTES } from '../core/outbound-delivery';
import {
  AUDIT_INDEX_PARTITION,
  AUDIT_PARTITION,
  OUTBOX_INDEX_PARTITION,
  OUTBOX_PARTITION,
  PARTNER_PARTITION,
  PARTNER_SLUG_PARTITION,
  PARTNERS_INDEX_PARTITION,
} from '../core/partitions';
import type { ServiceSecretName } from '../core/routes';
import {
  API_BASE_URL_FUNCTIONS,
  AUTHORIZER,
  EVENT_CONSUMER,
  OUTBOUND_ENRICHMENT,
  pageFunctionName,
  SUPPORT_ADDRESS_FUNCTIONS,
} from '../core/routes';
import { runtimeSettingsOf } from '../core/runtime-settings';
import { API_GATEWAY_ACCOUNT_STACK, ApiGatewayAccountStack } from './api-gateway-account-stack';
import { ActivationPages } from './constructs/activation-pages';
import { acknowledgeNagFinding } from './constructs/nag';
import type { AlarmConcern } from './constructs/operations-alarms';
import { OperationsAlarms } from './constructs/operations-alarms';
import { OperationsDashboard } from './constructs/operations-dashboard';
import { OperatorPolicy } from './constructs/operator-policy';
import { OutboundEvents } from './constructs/outbound-events';
import { PartnerApi } from './constructs/partner-api';
import { PartnerApiCanary } from './constructs/partner-api-canary';
import { PlatformEvents } from './constructs/platform-events';
import type { DeployedFunction } from './constructs/safe-deployments';
import { SafeDeployments } from './constructs/safe-deployments';
import type { FunctionSettings, ServiceFunction } from './constructs/service-function';
import { ServiceObjectives } from './constructs/service-objectives';
import type { ServiceRestApi } from './constructs/service-rest-api';
import { ServiceTable } from './constructs/service-table';
import { TableBackup } from './constructs/table-backup';
import { CostWatchStack, costWatchStackName } from './cost-watch-stack';
import type { StageConfig } from './stage-config';
import { STACK_OUTPUTS, senderAddress, stackName } from './stage-config';

export interface PartnerApiStackProps extends StackProps {
  readonly config: StageConfig;
  /** The account's API Gateway logging role, which the stages' logging needs first. */
  readonly apiGatewayAccount: ApiGatewayAccountStack;
}

/**
 * One stage of the service: the table, the service secret, the partner API with its authorizer
 * and usage plan, the pages, alarms, and the outputs the operator CLI reads. Stages differ only
 * through their {@link StageConfig}.
 */
export class PartnerApiStack extends Stack {
  public readonly table: ServiceTable;
  /** The service's secrets, each read only by the functions the route table names. */
  public readonly secrets: Readonly<Record<ServiceSecretName, Secret>>;
  public readonly partnerApi: PartnerApi;
  public readonly activationPages: ActivationPages;
  public readonly alarms: OperationsAlarms;
  /** The stage's CloudWatch dashboard (named like the stack). */
  public readonly dashboard: OperationsDashboard;
  /** The managed policy operators attach to use the CLI on this stage (traffic; extensible). */
  public readonly operatorPolicy: OperatorPolicy;
  /** The platform's events: bus, rule, queues and consumer. */
  public readonly platformEvents: PlatformEvents;
  /** This service's own events: outbound bus, the pipe from the table's stream, its enrichment, forwarding. */
  public readonly outboundEvents: OutboundEvents;
  /** AWS Backup of the table, on the stages that keep backups beyond point-in-time recovery. */
  public readonly tableBackup?: TableBackup;
  /** CodeDeploy's deployment group of every function, watched by the alarms of what it serves. */
  public readonly deployments: SafeDeployments;
  /** The service objectives' burn-rate alarms, on the stages that alarm on them. */
  public readonly objectives?: ServiceObjectives;
  /** The Synthetics canary that calls every route with its own key (`metricSuccessPercent()` for objectives). */
  public readonly canary: PartnerApiCanary;

  constructor(scope: Construct, id: string, props: PartnerApiStackProps) {
    super(scope, id, {
      description: `Partner data API and activation pages (${props.config.stage})`,
      ...props,
    });
    const { config } = props;
    const dataRemovalPolicy = config.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    Tags.of(this).add('service', 'partner-api');
    Tags.of(this).add('stage', config.stage);

    this.table = new ServiceTable(this, 'Data', { retain: config.retainData });
    if (config.tableBackup !== 'none')
      this.tableBackup = new TableBackup(this, 'Backup', {
        name: stackName(config.stage),
        table: this.table.table,
        dailyRetentionDays: config.tableBackup.dailyRetentionDays,
        monthlyRetentionDays: config.auditRetentionDays,
        copyVaultArn: config.backupCopyVaultArn,
      });
    this.secrets = this.serviceSecrets(config, dataRemovalPolicy);

    const functionSettings: FunctionSettings = {
      stage: config.stage,
      logRetention: config.logRetentionDays,
      logRemovalPolicy: dataRemovalPolicy,
      logLevel: config.logLevel,
      systemLogLevel: config.lambdaSystemLogLevel,
      runtimeSettings: runtimeSettingsOf(config),
    };
    const apiSettings = {
      stageName: config.stage,
      logRetention: config.logRetentionDays,
      logRemovalPolicy: dataRemovalPolicy,
      ...(config.traceSampling === 'account-default' ? {} : { traceSampling: config.traceSampling }),
    };
    const resources = {
      table: this.table.table,
      indexName: this.table.indexName,
      secrets: this.secrets,
      mailFrom: config.mailFrom,
    };
    // One certificate of the stage's region covers both names (docs/deploying.md#custom-domain).
    const { customDomain } = config;
    const certificate =
      customDomain && Certificate.fromCertificateArn(this, 'DomainCertificate', customDomain.certificateArn);
    const domainOf = (domainName: string | undefined) =>
      domainName && certificate
        ? { customDomain: { domainName, certificate, executeApi: customDomain?.executeApi ?? 'on' } }
        : {};
    this.partnerApi = new PartnerApi(this, 'PartnerApi', {
      resources,
      functionSettings,
      api: { ...apiSettings, throttle: config.apiThrottle, ...domainOf(customDomain?.apiDomain) },
      requestsPerIp: config.firewall.api,
      usagePlanThrottle: config.usagePlanThrottle,
    });
    this.activationPages = new ActivationPages(this, 'Pages', {
      resources,
      functionSettings,
      api: { ...apiSettings, throttle: config.pagesThrottle, ...domainOf(customDomain?.pagesDomain) },
      requestsPerIp: config.firewall.pages,
      secretScanningKeysUrl: config.secretScanningKeysUrl,
      metricsNamespace: stackName(config.stage),
    });
    this.platformEvents = new PlatformEvents(this, 'PlatformEvents', {
      resources,
      functionSettings,
      stage: config.stage,
      metricsNamespace: stackName(config.stage),
      ...(config.platformEventPublishers ? { publishers: config.platformEventPublishers } : {}),
    });
    this.outboundEvents = new OutboundEvents(this, 'OutboundEvents', {
      resources,
      functionSettings,
      stage: config.stage,
      metricsNamespace: stackName(config.stage),
      ...(config.platformEventBus ? { platformEventBus: config.platformEventBus } : {}),
    });
    this.canary = new PartnerApiCanary(this, 'Canary', {
      canaryName: `partner-api-${config.stage}`,
      baseUrl: this.partnerApi.baseUrl,
      settings: config.canary,
      removalPolicy: dataRemovalPolicy,
    });
    this.tellPagesWhereToPoint(config);
    this.reserveConcurrency(config);
    // API Gateway's logging role is the account's (ApiGatewayAccountStack): the stages wait for it.
    this.addStackDependency(props.apiGatewayAccount);

    this.alarms = this.operationsAlarms(config);
    this.deployments = this.safeDeployments(config);
    if (config.objectiveAlarms)
      this.objectives = new ServiceObjectives(this, 'Objectives', {
        name: stackName(config.stage),
        partnerApi: this.partnerApi.restApi,
        routeFunctions: this.partnerApi.routeFunctions,
        platformEvents: this.platformEvents,
        outboundEvents: this.outboundEvents,
        canary: this.canary,
        ...(config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {}),
      });
    this.dashboard = this.operationsDashboard(config);
    this.addOutputs(config);
    this.operatorPolicy = this.operatorPolicyOf(config);
  }

  /**
   * Generated by Secrets Manager at deploy time: the values are never in the template. 64
   * alphanumeric characters decode (base64url) to the 48 bytes the code expects (≥ 32). One
   * secret per purpose, so that the pages that only keep sessions cannot unseal partners' signing
   * secrets, and the property list, which signs cursors, reaches neither.
   */
  private serviceSecrets(
    config: StageConfig,
    removalPolicy: RemovalPolicy,
  ): Readonly<Record<ServiceSecretName, Secret>> {
    const secret = (id: string, purpose: string, rotation: string) => {
      const created = new Secret(this, id, {
        description: `Partner API ${config.stage}: ${purpose}`,
        generateSecretString: {
          secretStringTemplate: '{}',
          generateStringKey: 'masterKey',
          passwordLength: 64,
          excludePunctuation: true,
        },
        removalPolicy,
      });
      acknowledgeNagFinding(created, 'SMG4', rotation);
      return created;
    };
    return {
      sealing: secret(
        'SealingSecret',
        "master key of the key that seals partners' activation signing secrets",
        "The sealing key cannot rotate automatically: partners' signing secrets are sealed with a key derived from " +
          'it, so a new value needs a re-seal of every signing secret (an operator procedure).',
      ),
      session: secret(
        'SessionSecret',
        'master key of the key that signs host sessions and their forms',
        'Rotating the session key ends every host session in progress (at most 12 hours of onboarding); an operator ' +
          'rotates it by hand at a quiet time rather than on a schedule that would interrupt hosts.',
      ),
      cursor: secret(
        'CursorSecret',
        'master key of the key that signs page cursors of GET /properties',
        'Rotating the cursor key only makes the page cursors in flight invalid (a 400 that says to start the walk ' +
          'again); an operator rotates it by hand when needed, with no other effect.',
      ),
    };
  }

  /** What functions show that only the stack knows: the API's base URL and our mail sender. */
  private tellPagesWhereToPoint(config: StageConfig): void {
    const functions = this.functionsByName();
    // Where the API is, as partners reach it: the home page links its reference, the document names it.
    for (const name of API_BASE_URL_FUNCTIONS)
      functions.get(name)?.function.addEnvironment('API_BASE_URL', this.partnerApi.baseUrl);
    // How partners reach us, one address everywhere: the one our mail to partners comes from.
    for (const name of SUPPORT_ADDRESS_FUNCTIONS)
      functions.get(name)?.function.addEnvironment('CONTACT_EMAIL', senderAddress(config.mailFrom));
  }

  /**
   * Caps the functions that are not the partner API's with reserved concurrency (and sets it aside):
   * each page, the event consumer, the outbound enrichment. The authorizer and the routes use the
   * rest of the account's pool. https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html
   */
  private reserveConcurrency(config: StageConfig): void {
    if (config.concurrency === 'account-pool') return;
    const reserve = (serviceFunction: ServiceFunction | undefined, executions: number) => {
      const cfn = serviceFunction?.function.node.defaultChild;
      if (!(cfn instanceof CfnFunction)) throw new Error('A function without its CfnFunction');
      cfn.reservedConcurrentExecutions = executions;
    };
    for (const pageFunction of this.activationPages.pageFunctions.values())
      reserve(pageFunction, config.concurrency.pageFunction);
    reserve(this.platformEvents.consumer, config.concurrency.eventConsumer);
    reserve(this.outboundEvents.enrichment, config.concurrency.outboundEnrichment);
  }

  /** The functions by their names (`serviceFunctions`' names), the authorizer left out. */
  private functionsByName(): Map<string, ServiceFunction> {
    const functions = new Map<string, ServiceFunction>();
    for (const [routeId, routeFunction] of this.partnerApi.routeFunctions) {
      functions.set(routeId, routeFunction);
    }
    for (const [routeId, pageFunction] of this.activationPages.pageFunctions) {
      functions.set(pageFunctionName(routeId), pageFunction);
    }
    functions.set(EVENT_CONSUMER.id, this.platformEvents.consumer);
    functions.set(OUTBOUND_ENRICHMENT.id, this.outboundEvents.enrichment);
    return functions;
  }

  private operationsAlarms(config: StageConfig): OperationsAlarms {
    // The authorizer is left out of the function-error alarms: it answers a request without a key by
    // throwing "Unauthorized" (API Gateway's 401), which Lambda counts in Errors. Its real failures
    // are what clients see as AUTHORIZER_FAILURE in the access log, which has its own alarm.
    const functions = this.functionsByName();
    return new OperationsAlarms(this, 'Alarms', {
      name: stackName(config.stage),
      apis: new Map([
        ['partnerApi', this.partnerApi.restApi],
        ['pages', this.activationPages.restApi],
      ]),
      authorizedApi: this.partnerApi.restApi,
      functions,
      thresholds: config.alarms,
      platformEvents: this.platformEvents,
      outboundEvents: this.outboundEvents,
      ...(config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {}),
      ...(this.tableBackup ? { failedBackupJobs: this.tableBackup.failedJobs } : {}),
      canary: this.canary,
    });
  }

  /**
   * Every function, the authorizer included, shifted by CodeDeploy and rolled back on the alarms of
   * what it serves: its own errors, and its API's 5xx and latency (the authorizer's failures for the
   * partner API's), or its event flow's dead letters and lag. docs/deploying.md#safe-deployments
   */
  private safeDeployments(config: StageConfig): SafeDeployments {
    const deployed = (serviceFunction: ServiceFunction, concern: AlarmConcern, name?: string) => ({
      serviceFunction,
      alarms: [
        ...this.alarms.rollbackAlarmsOf(concern),
        ...(name ? this.alarms.rollbackAlarmsOf(`function:${name}`) : []),
      ],
    });
    const functions = new Map<string, DeployedFunction>([
      [AUTHORIZER.id, deployed(this.partnerApi.authorizerFunction, 'partnerApi')],
    ]);
    for (const [routeId, routeFunction] of this.partnerApi.routeFunctions)
      functions.set(routeId, deployed(routeFunction, 'partnerApi', routeId));
    for (const [routeId, pageFunction] of this.activationPages.pageFunctions) {
      const name = pageFunctionName(routeId);
      functions.set(name, deployed(pageFunction, 'pages', name));
    }
    functions.set(
      EVENT_CONSUMER.id,
      deployed(this.platformEvents.consumer, 'platformEvents', EVENT_CONSUMER.id),
    );
    functions.set(
      OUTBOUND_ENRICHMENT.id,
      deployed(this.outboundEvents.enrichment, 'outboundEvents', OUTBOUND_ENRICHMENT.id),
    );
    return new SafeDeployments(this, 'Deployments', {
      name: stackName(config.stage),
      trafficShifting: config.trafficShifting,
      functions,
      ...(config.rollbackAlarms ? { rollbackAlarms: config.rollbackAlarms } : {}),
    });
  }

  private operationsDashboard(config: StageConfig): OperationsDashboard {
    const dashboardApi = (apiName: string, restApi: ServiceRestApi) => {
      const metrics = this.alarms.accessLogMetrics.get(apiName);
      if (!metrics) throw new Error(`No access-log metrics for ${apiName}`);
      return { restApi, metrics };
    };
    const partnerApiView = dashboardApi('partnerApi', this.partnerApi.restApi);
    return new OperationsDashboard(this, 'Dashboard', {
      name: stackName(config.stage),
      apis: new Map([
        ['partnerApi', partnerApiView],
        ['pages', dashboardApi('pages', this.activationPages.restApi)],
      ]),
      authorizedApi: partnerApiView,
      table: this.table.table,
      platformEvents: this.platformEvents,
      outboundEvents: this.outboundEvents,
      ...(this.objectives ? { objectives: this.objectives } : {}),
      canary: this.canary,
    });
  }

  /** The outputs the operator CLI reads (STACK_OUTPUTS), but the operator policy's. */
  private addOutputs(config: StageConfig): void {
    new CfnOutput(this, STACK_OUTPUTS.apiBaseUrl, {
      value: this.partnerApi.baseUrl,
      description: 'Partner API base URL ({base_url}), ending in /partner-api/v1',
    });
    new CfnOutput(this, STACK_OUTPUTS.activationBaseUrl, {
      value: this.activationPages.baseUrl,
      description: 'Base URL of the reveal and activation pages ({activation_base}), no trailing slash',
    });
    new CfnOutput(this, STACK_OUTPUTS.tableName, {
      value: this.table.table.tableName,
      description: 'DynamoDB table',
    });
    new CfnOutput(this, STACK_OUTPUTS.sealingSecretArn, {
      value: this.secrets.sealing.secretArn,
      description:
        "Sealing secret of partners' signing secrets (its ARN; the operator CLI mints links with it)",
    });
    new CfnOutput(this, STACK_OUTPUTS.usagePlanId, {
      value: this.partnerApi.usagePlan.usagePlanId,
      description: 'Usage plan the operator CLI attaches partner API keys to',
    });
    new CfnOutput(this, STACK_OUTPUTS.eventBusName, {
      value: this.platformEvents.bus.eventBusName,
      description: 'The bus the platform publishes its events to (docs/design/events.md)',
    });
    new CfnOutput(this, STACK_OUTPUTS.platformEventsQueueUrl, {
      value: this.platformEvents.queue.queueUrl,
      description: "The queue of the platform's events, which the consumer reads",
    });
    new CfnOutput(this, STACK_OUTPUTS.platformEventsDeadLetterQueueUrl, {
      value: this.platformEvents.deadLetterQueue.queueUrl,
      description: 'Events the consumer refused or could not apply, with the reason (`events failed`)',
    });
    new CfnOutput(this, STACK_OUTPUTS.outboundEventBusName, {
      value: this.outboundEvents.bus.eventBusName,
      description: 'The bus this service sends its own events to, from its outbox (docs/deploying.md)',
    });
    new CfnOutput(this, STACK_OUTPUTS.outboundEventBusArn, {
      value: this.outboundEvents.bus.eventBusArn,
      description:
        "The outbound bus's ARN: the source of the events the platform's bus receives from this stage",
    });
    new CfnOutput(this, STACK_OUTPUTS.mailFrom, {
      value: config.mailFrom,
      description: 'Sender of operator mail (must be a verified SES identity)',
    });
    new CfnOutput(this, STACK_OUTPUTS.canaryKeySecretArn, {
      value: this.canary.keySecret.secretArn,
      description: "The canary's secret: store the canary partner's key in it (docs/deploying.md#the-canary)",
    });
    new CfnOutput(this, STACK_OUTPUTS.canaryName, {
      value: this.canary.canary.canaryName,
      description:
        'The Synthetics canary that calls every partner API route (aws synthetics get-canary-runs --name)',
    });
    if (this.tableBackup)
      new CfnOutput(this, STACK_OUTPUTS.failedBackupJobsQueueUrl, {
        value: this.tableBackup.failedJobs.queueUrl,
        description:
          "AWS Backup's events of the table's backup jobs that ended without a recovery point (the backup-failed alarm)",
      });
    const targets = [
      [this.partnerApi.restApi, STACK_OUTPUTS.apiDomainTarget, STACK_OUTPUTS.apiDomainHostedZoneId],
      [this.activationPages.restApi, STACK_OUTPUTS.pagesDomainTarget, STACK_OUTPUTS.pagesDomainHostedZoneId],
    ] as const;
    for (const [restApi, target, zone] of targets) {
      if (!restApi.domain) continue;
      new CfnOutput(this, target, {
        value: restApi.domain.domainNameAliasDomainName,
        description: `Where the DNS record of ${restApi.domain.domainName} points: a CNAME's value, or a Route 53 alias's DNS name`,
      });
      new CfnOutput(this, zone, {
        value: restApi.domain.domainNameAliasHostedZoneId,
        description: `The hosted zone id a Route 53 alias record of ${restApi.domain.domainName} names`,
      });
    }
  }

  /**
   * The managed policy of operators who read (`traffic`, `audit list`, `events failed`, `events sent`),
   * and its outputs.
   */
  private operatorPolicyOf(config: StageConfig): OperatorPolicy {
    const accessLogGroup = this.partnerApi.restApi.accessLogGroup;
    const operatorPolicy = new OperatorPolicy(this, 'OperatorPolicy', {
      name: stackName(config.stage),
      accessLogGroup,
    });
    // `audit list` (and the partner lookup of `audit list --partner` and `traffic`): read-only,
    // and only the partitions these commands read.
    const leadingKeys = (keys: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys } });
    const summaryOnly = {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...OUTBOX_SUMMARY_ATTRIBUTES] },
      StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
    };
    operatorPolicy.addStatements(
      new PolicyStatement({
        sid: 'ReadAuditTrail',
        actions: ['dynamodb:Query'],
        resources: [this.table.table.tableArn, `${this.table.table.tableArn}/index/${this.table.indexName}`],
        conditions: leadingKeys([`${AUDIT_PARTITION}*`, AUDIT_INDEX_PARTITION, PARTNERS_INDEX_PARTITION]),
      }),
      // `events failed`: looking at a message means receiving it; the CLI makes it visible again at once.
      new PolicyStatement({
        sid: 'ReadFailedEvents',
        actions: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
        resources: [this.platformEvents.deadLetterQueue.queueArn],
      }),
      // `events sent`: the outbox of one host on the table, and of one UTC day on the index; read-only,
      // and only the attributes its table shows (ids, type, version, times): no host's e-mail, name
      // or answers. `--json` (each event's detail) takes the stage's data access.
      new PolicyStatement({
        sid: 'ReadEventsSentOfHost',
        actions: ['dynamodb:Query'],
        resources: [this.table.table.tableArn],
        conditions: { ...leadingKeys([`${OUTBOX_PARTITION}*`]), ...summaryOnly },
      }),
      new PolicyStatement({
        sid: 'ReadEventsSentByDay',
        actions: ['dynamodb:Query'],
        resources: [`${this.table.table.tableArn}/index/${this.table.indexName}`],
        conditions: { ...leadingKeys([`${OUTBOX_INDEX_PARTITION}*`]), ...summaryOnly },
      }),
      new PolicyStatement({
        sid: 'FindPartner',
        actions: ['dynamodb:GetItem'],
        resources: [this.table.table.tableArn],
        conditions: leadingKeys([`${PARTNER_SLUG_PARTITION}*`, `${PARTNER_PARTITION}*`]),
      }),
    );
    new CfnOutput(this, STACK_OUTPUTS.accessLogGroupName, {
      value: accessLogGroup.logGroupName,
      description: 'Access log group of the partner API (the operator CLI counts traffic in it)',
    });
    new CfnOutput(this, STACK_OUTPUTS.operatorPolicyArn, {
      value: operatorPolicy.policy.managedPolicyArn,
      description:
        'Managed policy for operators who read: `traffic` (Logs Insights) and `audit list` (the audit trail)',
    });
    return operatorPolicy;
  }
}

/**
 * The service's stacks in `app`: the account's API Gateway logging role (ApiGatewayAccountStack),
 * then one stack per stage, each waiting for it and for its cost watch in us-east-1 (CostWatchStack),
 * so `cdk deploy PartnerApi-<stage>` deploys both first wherever the stage lives. `bin/app.ts` and the
 * tests build the app this one way.
 */
export function addServiceStacks(app: Construct, configs: readonly StageConfig[]): PartnerApiStack[] {
  if (configs.length === 0) return [];
  const apiGatewayAccount = new ApiGatewayAccountStack(app, API_GATEWAY_ACCOUNT_STACK);
  return configs.map((config) => {
    const stack = new PartnerApiStack(app, stackName(config.stage), { config, apiGatewayAccount });
    // The stage's budget and anomaly monitor live in us-east-1 (CostWatchStack), deployed before it.
    stack.addStackDependency(new CostWatchStack(app, costWatchStackName(config.stage), { config }));
    return stack;
  });
}
