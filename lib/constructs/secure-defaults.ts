import { Duration } from 'aws-cdk-lib';
import type { StageOptions } from 'aws-cdk-lib/aws-apigateway';
import {
  AccessLogField,
  AccessLogFormat,
  EndpointType,
  MethodLoggingLevel,
} from 'aws-cdk-lib/aws-apigateway';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RuntimeSettings } from '../../core/runtime-settings';
import { DEFAULT_RUNTIME_SETTINGS, runtimeEnvironment } from '../../core/runtime-settings';
import {
  FUNCTION_BUNDLING,
  FUNCTION_MEMORY_MB,
  FUNCTION_NODE_OPTIONS,
  FUNCTION_TIMEOUT_SECONDS,
  POWERTOOLS_SERVICE_NAME,
} from '../function-defaults';

/**
 * The secure defaults of every construct in this app, in one file (aws-solutions-constructs
 * style): a construct takes its settings from here and a stage changes them only through
 * `lib/stage-config.ts`.
 */

/** The newest Node.js runtime aws-cdk-lib offers; the handlers are Node 24-compatible ESM. */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

export const LAMBDA_DEFAULTS = {
  runtime: LAMBDA_RUNTIME,
  architecture: Architecture.ARM_64,
  tracing: Tracing.ACTIVE,
  loggingFormat: LoggingFormat.JSON,
  memorySize: FUNCTION_MEMORY_MB,
  timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
} as const;

/** esbuild settings of `FUNCTION_BUNDLING`, for the runtime above. */
export const BUNDLING_DEFAULTS: BundlingOptions = {
  format: OutputFormat.ESM,
  mainFields: [...FUNCTION_BUNDLING.mainFields],
  banner: FUNCTION_BUNDLING.banner,
  target: 'node24',
  minify: FUNCTION_BUNDLING.minify,
  sourceMap: FUNCTION_BUNDLING.sourceMap,
  sourceMapMode: SourceMapMode.DEFAULT,
  sourcesContent: FUNCTION_BUNDLING.sourcesContent,
  externalModules: [],
};

/** Environment every function gets (source maps on: `FUNCTION_NODE_OPTIONS` says what they cost). */
export function baseEnvironment(
  stage: string,
  logLevel: string,
  runtimeSettings: RuntimeSettings = DEFAULT_RUNTIME_SETTINGS,
): Record<string, string> {
  return {
    STAGE: stage,
    POWERTOOLS_SERVICE_NAME,
    POWERTOOLS_LOG_LEVEL: logLevel,
    NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
    ...runtimeEnvironment(runtimeSettings),
  };
}

/**
 * One JSON line per request. No query string, header or body is logged (keys travel in
 * headers); the partner appears only as its id and 12-character key prefix. `status` is a
 * number so metric filters can compare it. Every field is read by something (a metric filter, the
 * dashboard, `traffic`, the local access log, or a reader docs/deploying.md names: "The access
 * log's fields"); the integration's latency is not written, API Gateway's `IntegrationLatency`
 * metric carries it, and each field costs its bytes on every request. The authorizer's status and
 * latency stay: no metric measures the authorizer as the gateway saw it, and they tell a failing,
 * a slow and a throttled authorizer apart.
 */
export const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  `{${[
    ['requestId', AccessLogField.contextRequestId()],
    ['requestTime', AccessLogField.contextRequestTime()],
    ['ip', AccessLogField.contextIdentitySourceIp()],
    ['userAgent', AccessLogField.contextIdentityUserAgent()],
    ['httpMethod', AccessLogField.contextHttpMethod()],
    ['resourcePath', AccessLogField.contextResourcePath()],
    ['path', AccessLogField.contextPath()],
    ['protocol', AccessLogField.contextProtocol()],
    ['responseLength', AccessLogField.contextResponseLength()],
    ['responseLatency', AccessLogField.contextResponseLatency()],
    ['integrationStatus', AccessLogField.contextIntegrationStatus()],
    ['authorizerStatus', AccessLogField.contextAuthorizerStatus()],
    ['authorizerLatency', AccessLogField.contextAuthorizerLatency()],
    ['partnerId', AccessLogField.contextAuthorizer('partnerId')],
    ['keyPrefix', AccessLogField.contextAuthorizer('keyPrefix')],
    ['responseType', AccessLogField.contextErrorResponseType()],
    ['errorMessage', AccessLogField.contextErrorMessage()],
    ['xrayTraceId', AccessLogField.contextXrayTraceId()],
  ]
    .map(([name, field]) => `"${name}":"${field}"`)
    .concat(`"status":${AccessLogField.contextStatus()}`)
    .join(',')}}`,
);

export const REST_API_ENDPOINT_TYPES = [EndpointType.REGIONAL];

/**
 * Stage settings of both REST APIs: X-Ray, execution logs of errors only, and never request or
 * response data in them (API keys travel in headers).
 */
export const STAGE_DEFAULTS: StageOptions = {
  tracingEnabled: true,
  loggingLevel: MethodLoggingLevel.ERROR,
  dataTraceEnabled: false,
  metricsEnabled: false,
};
