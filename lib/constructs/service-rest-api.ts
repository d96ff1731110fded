import type { RemovalPolicy } from 'aws-cdk-lib';
import { Stack } from 'aws-cdk-lib';
import type { ApiKeySourceType, RequestValidator, ThrottleSettings } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnRestApi,
  DomainName,
  EndpointAccessMode,
  EndpointType,
  LogGroupLogDestination,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';
import type { TraceSampling } from '../stage-config';
import {
  acknowledgeGuardFinding,
  acknowledgeLambdaPermissionsOfApiGateway,
  acknowledgeLogGroupEncryption,
  acknowledgeShortLogRetention,
} from './nag';
import { addProblemGatewayResponses } from './rest-api-routing';
import { ACCESS_LOG_FORMAT, REST_API_ENDPOINT_TYPES, STAGE_DEFAULTS } from './secure-defaults';
import type { WebFirewallProps } from './web-firewall';
import { WebFirewall } from './web-firewall';

export interface ServiceRestApiProps {
  readonly restApiName: string;
  readonly description: string;
  /** Stage name (the service stage: `sandbox` or `production`). */
  readonly stageName: string;
  /** Throttle of the whole stage. */
  readonly throttle: ThrottleSettings;
  /**
   * Tighter throttles of single methods, by `<path>/<METHOD>` (API Gateway's method settings:
   * https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html).
   * @default - every method has the stage's
   */
  readonly methodThrottles?: Readonly<Record<string, ThrottleSettings>>;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** @default - API keys, if required, come from the X-API-Key header */
  readonly apiKeySourceType?: ApiKeySourceType;
  /**
   * Media types API Gateway passes as bytes: a Lambda body marked base64 (gzip) is decoded for
   * clients whose Accept header matches one of them.
   * @default - none: bodies pass as text
   */
  readonly binaryMediaTypes?: string[];
  /** The web ACL in front of the stage (named after the API). */
  readonly firewall: Omit<WebFirewallProps, 'stage' | 'name'>;
  /**
   * An X-Ray sampling rule for this stage alone.
   * @default - X-Ray's default rule of the account (1 request a second, then 5 %)
   */
  readonly traceSampling?: TraceSampling;
  /**
   * The stage served on a name of the deployer's domain (the whole name: base path empty); with
   * `executeApi: 'off'` the `execute-api` address is turned off (it answers 403, so no client or
   * link keeps using it: https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-custom-domains.html).
   * @default - the `execute-api.amazonaws.com` address
   */
  readonly customDomain?: {
    readonly domainName: string;
    readonly certificate: ICertificate;
    /** Whether the `execute-api` address answers too (while clients move). @default 'on' */
    readonly executeApi?: 'on' | 'off';
  };
}

/**
 * The TLS policy of both REST APIs and their custom domains: TLS 1.3, and TLS 1.2 with forward-secret
 * ciphers only (partners' older HTTP clients still speak 1.2), in STRICT mode (a request must arrive
 * through the endpoint it names, matched by SNI):
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-security-policies.html
 */
const TLS_POLICY = SecurityPolicy.TLS13_1_2_PFS_PQ_2025_09;

/**
 * Where a sampling rule stands among the account's (1–9999, lowest first): ahead of X-Ray's
 * default rule (10000), behind any narrower rule an operator adds in front (1–99).
 */
const SAMPLING_RULE_PRIORITY = 100;

/**
 * A regional REST API with the service's stage defaults: access logs in their own log group,
 * X-Ray (with the stage's sampling rule, if it has one), error-level execution logs without request
 * data in a log group of the stack, a stage-wide throttle, a validator for declared request
 * parameters, every API Gateway error rewritten as problem details, and a WAF web ACL in front.
 * The account-level CloudWatch role is the stack's business (one per account, not per API).
 */
export class ServiceRestApi extends Construct {
  public readonly api: RestApi;
  public readonly accessLogGroup: LogGroup;
  /** The execution log group, which API Gateway would otherwise create itself, without retention. */
  public readonly executionLogGroup: LogGroup;
  /** The stage's X-Ray sampling rule, if it has its own. */
  public readonly samplingRule?: CfnSamplingRule;
  /** Validates the parameters a method declares as required (API Gateway cannot check values). */
  public readonly parameterValidator: RequestValidator;
  /** The base URL clients use, without a trailing slash: the custom domain's, or the stage's `execute-api` one. */
  public readonly baseUrl: string;
  /** The custom domain in front of the stage, if it has one. */
  public readonly domain?: DomainName;
  public readonly firewall: WebFirewall;
  /** The API's and its stage's names, as API Gateway's metrics name them. */
  private readonly metricDimensions: { readonly ApiName: string; readonly Stage: string };

  constructor(scope: Construct, id: string, props: ServiceRestApiProps) {
    super(scope, id);
    this.metricDimensions = { ApiName: props.restApiName, Stage: props.stageName };
    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: props.restApiName,
      description: props.description,
      endpointTypes: REST_API_ENDPOINT_TYPES,
      disableExecuteApiEndpoint: props.customDomain?.executeApi === 'off',
      cloudWatchRole: false,
      ...(props.apiKeySourceType ? { apiKeySourceType: props.apiKeySourceType } : {}),
      ...(props.binaryMediaTypes ? { binaryMediaTypes: props.binaryMediaTypes } : {}),
      deployOptions: {
        ...STAGE_DEFAULTS,
        stageName: props.stageName,
        accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: ACCESS_LOG_FORMAT,
        throttlingRateLimit: props.throttle.rateLimit,
        throttlingBurstLimit: props.throttle.burstLimit,
        ...(props.methodThrottles
          ? {
              methodOptions: Object.fromEntries(
                Object.entries(props.methodThrottles).map(([method, throttle]) => [
                  method,
                  { throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit },
                ]),
              ),
            }
          : {}),
      },
    });
    // The stack publishes the base URLs itself (without RestApi's trailing-slash `Endpoint`).
    this.api.node.tryRemoveChild('Endpoint');
    // The API's own TLS policy: API Gateway negotiates the handshake with it even for requests that
    // come through a custom domain (a REST API without one gets the legacy TLS 1.0 policy):
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-security-policies-update.html
    const cfnApi = this.api.node.defaultChild;
    if (!(cfnApi instanceof CfnRestApi)) throw new Error('A RestApi without its CfnRestApi');
    cfnApi.securityPolicy = TLS_POLICY;
    cfnApi.endpointAccessMode = EndpointAccessMode.STRICT;
    // API Gateway writes execution logs to the group of this exact name, and creates it (with no
    // retention, outside CloudFormation) if it does not exist when the stage starts logging:
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/rest-api-execution-logging.html
    // Made here first, and the stage waits for it, so the retention and removal are the stack's.
    this.executionLogGroup = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogGroup);
    if (props.traceSampling) {
      // Sampling rules are account-wide: this one matches this stage alone, by the service name
      // API Gateway gives it ({api-name}/{stage}) and the stage's ARN.
      // https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-configuring-xray-sampling-rules.html
      const stack = Stack.of(this);
      this.samplingRule = new CfnSamplingRule(this, 'SamplingRule', {
        samplingRule: {
          ruleName: props.restApiName,
          priority: SAMPLING_RULE_PRIORITY,
          fixedRate: props.traceSampling.fixedRate,
          reservoirSize: props.traceSampling.reservoirPerSecond,
          serviceName: `${props.restApiName}/${props.stageName}`,
          serviceType: 'AWS::ApiGateway::Stage',
          resourceArn: `arn:${stack.partition}:apigateway:${stack.region}::/restapis/${this.api.restApiId}/stages/${props.stageName}`,
          host: '*',
          httpMethod: '*',
          urlPath: '*',
          version: 1,
        },
      });
    }
    this.parameterValidator = this.api.addRequestValidator('ParameterValidator', {
      requestValidatorName: 'parameters-and-body',
      // No method declares a body model yet; when one does, its body is validated too.
      validateRequestParameters: true,
      validateRequestBody: true,
    });
    this.firewall = new WebFirewall(this, 'Firewall', {
      ...props.firewall,
      stage: this.api.deploymentStage,
      name: props.restApiName,
    });
    addProblemGatewayResponses(this.api);
    for (const logGroup of [this.accessLogGroup, this.executionLogGroup]) {
      acknowledgeLogGroupEncryption(logGroup);
      acknowledgeShortLogRetention(logGroup, props.logRetention);
    }
    acknowledgeLambdaPermissionsOfApiGateway(this.api);
    const stack = Stack.of(this);
    if (props.customDomain) {
      // The API's own TLS policy, which the handshake uses, and the same on the name for consistency.
      this.domain = new DomainName(this, 'Domain', {
        domainName: props.customDomain.domainName,
        certificate: props.customDomain.certificate,
        endpointType: EndpointType.REGIONAL,
        securityPolicy: TLS_POLICY,
        endpointAccessMode: EndpointAccessMode.STRICT,
      });
      acknowledgeGuardFinding(
        this.domain,
        'api_gw_domain_tls_check',
        'The control (CT.APIGATEWAY.PR.6) asks for a minimum of TLS 1.2 and knows only the legacy policy TLS_1_2 ' +
          'by name; this enhanced policy has the same minimum, TLS 1.2 with forward-secret ciphers only, and adds TLS 1.3.',
      );
      this.domain.addBasePathMapping(this.api, { stage: this.api.deploymentStage });
      this.baseUrl = `https://${props.customDomain.domainName}`;
    } else {
      this.baseUrl = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stageName}`;
    }
  }

  /**
   * An API Gateway metric of the stage (`AWS/ApiGateway`, by `ApiName` and `Stage`), its dimensions
   * the names as written, not references to the API and stage: an alarm on it then depends on
   * neither, so CodeDeploy's deployment groups can watch it while the stage's methods invoke the
   * aliases those groups move (CloudFormation follows the Ref in an alias's update policy, and a
   * reference back to the stage would close a circle).
   */
  metric(metricName: '5XXError' | 'Count' | 'Latency', options: MetricOptions): Metric {
    return new Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      dimensionsMap: this.metricDimensions,
      ...options,
    });
  }
}
