import type { RemovalPolicy } from 'aws-cdk-lib';
import { Stack } from 'aws-cdk-lib';
import type { ApiKeySourceType, RequestValidator, ThrottleSettings } from 'aws-cdk-lib/aws-apigateway';
import { LogGroupLogDestination, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
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
}

/**
 * A regional REST API with the service's stage defaults: access logs in their own log group,
 * X-Ray, error-level execution logs without request data, a stage-wide throttle, a validator
 * for declared request parameters, every API Gateway error rewritten as problem details, and a
 * WAF web ACL in front.
 * The account-level CloudWatch role is the stack's business (one per account, not per API).
 */
export class ServiceRestApi extends Construct {
  public readonly api: RestApi;
  public readonly accessLogGroup: LogGroup;
  /** Validates the parameters a method declares as required (API Gateway cannot check values). */
  public readonly parameterValidator: RequestValidator;
  /** The stage's base URL, without a trailing slash. */
  public readonly stageUrl: string;
  public readonly firewall: WebFirewall;

  constructor(scope: Construct, id: string, props: ServiceRestApiProps) {
    super(scope, id);
    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: props.restApiName,
      description: props.description,
      endpointTypes: REST_API_ENDPOINT_TYPES,
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
      },
    });
    // The stack publishes the base URLs itself (without RestApi's trailing-slash `Endpoint`).
    this.api.node.tryRemoveChild('Endpoint');
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
    acknowledgeLogGroupEncryption(this.accessLogGroup);
    acknowledgeShortLogRetention(this.accessLogGroup, props.logRetention);
    acknowledgeLambdaPermissionsOfApiGateway(this.api);
    const stack = Stack.of(this);
    this.stageUrl = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stageName}`;
  }
}
