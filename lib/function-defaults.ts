/**
 * Settings every Lambda function of the service shares, without aws-cdk-lib, so the stack
 * (`lib/constructs/secure-defaults.ts`) and the local runtime (`emulator/lambda-runtime.ts`) read
 * the same numbers.
 */

/**
 * The DynamoDB client gives up on a call after 3 attempts of at most 1 s to connect and 2.5 s to
 * answer (about 11 s with back-off), and the handler turns that into a 503. 15 s leaves room for
 * that answer and stays under API Gateway's 29 s integration timeout.
 */
export const FUNCTION_TIMEOUT_SECONDS = 15;

export const FUNCTION_MEMORY_MB = 512;

/**
 * The service every function's log lines and metrics name (`POWERTOOLS_SERVICE_NAME`): Powertools
 * Metrics gives each metric a `service` dimension of this value, which an alarm on it must name.
 */
export const POWERTOOLS_SERVICE_NAME = 'partner-api';

/** Node's `require` for the rare CommonJS dependency inside an ESM bundle. */
const CREATE_REQUIRE_BANNER =
  "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);";

/**
 * How every function is bundled by esbuild: one minified ESM file per handler with the AWS SDK
 * inside (pinned by our lock file) and a source map without the sources. The stack passes these
 * to CDK's NodejsFunction; the local runtime builds the same bundles at start. One file, no code
 * splitting: a dynamic `import()` of our own module stays in the file, and esbuild wraps what only
 * it reaches in a function that runs on the first call, so the module's load work is left out of
 * the cold start (the event consumer's dead-letter sender; docs/design/README.md#cold-start-is-billed).
 */
export const FUNCTION_BUNDLING = {
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: CREATE_REQUIRE_BANNER,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
} as const;

/**
 * Stack traces point at sources through the bundle's source map. Not free: Node reads and parses
 * the map when it loads the bundle, about a tenth of each function's module load (bench section 2
 * measures it); kept for readable stack traces in the logs (docs/design/README.md#cold-start-is-billed).
 */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';
