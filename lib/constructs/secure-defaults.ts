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
  memorySize: 512,
  /**
   * The DynamoDB client gives up on a call after 3 attempts of at most 1 s to connect and 2.5 s
   * to answer (about 11 s with back-off), and the handler turns that into a 503. 15 s leaves
   * room for that answer and stays under API Gateway's 29 s integration timeout.
   */
  timeout: Duration.seconds(15),
} as const;

/** Node's `require` for the rare CommonJS dependency inside an ESM bundle. */
const CREATE_REQUIRE_BANNER =
  "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);";

/** esbuild settings: one minified ESM file per handler, AWS SDK included (pinned by our lock file). */
export const BUNDLING_DEFAULTS: BundlingOptions = {
  format: OutputFormat.ESM,
  mainFields: ['module', 'main'],
  banner: CREATE_REQUIRE_BANNER,
  target: 'node24',
  minify: true,
  sourceMap: true,
  sourceMapMode: SourceMapMode.DEFAULT,
  // Stack traces map to file and line; the sources themselves stay out of the asset.
  sourcesContent: false,
  externalModules: [],
};

/** Environment every function gets. Source maps cost only when a stack trace is formatted. */
export function baseEnvironment(stage: string, logLevel: string): Record<string, string> {
  return {
    STAGE: stage,
    POWERTOOLS_SERVICE_NAME: 'partner-api',
    POWERTOOLS_LOG_LEVEL: logLevel,
    NODE_OPTIONS: '--enable-source-maps',
  };
}

/**
 * One JSON line per request. No query string, header or body is logged (keys travel in
 * headers); the partner appears only as its id and 12-character key prefix. `status` is a
 * number so metric filters can compare it.
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
    ['integrationLatency', AccessLogField.contextIntegrationLatency()],
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
