import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer';

/**
 * Four suites, one command (`npm test`):
 * - unit: pure logic and handlers with aws-sdk-client-mock (no I/O);
 * - integration: the local server over real HTTP against DynamoDB Local;
 * - browser: Debian's Chromium (playwright-core) against the local server;
 * - infra: the synthesized CDK templates and cdk-nag.
 */
export default defineConfig({
  test: {
    // Two test files at a time whatever the machine: vitest's default is one fewer than the CPUs,
    // which on CI's two cores runs every file alone, while the integration and browser files mostly
    // wait on servers, DynamoDB Local and Chromium. Each file makes its own partners, keys and hosts.
    maxWorkers: 2,
    // Longest files first and infra last, across the four suites (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.{ts,tsx}'],
          // Property-based tests run hundreds of cases; on a loaded CI machine 5 s is too tight.
          testTimeout: 30_000,
          setupFiles: ['test/support/unit-environment.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/local-service-setup.ts'],
          setupFiles: ['test/support/integration-environment.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/support/local-service-setup.ts'],
          setupFiles: ['test/support/integration-environment.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // Synthesizes the app once per run, in its own process, while files that do not need it run.
          globalSetup: ['test/support/infra-synthesis-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
