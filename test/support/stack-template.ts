import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect } from 'vitest';
import { API_BASE_PATH, pageRoutes, partnerApiRoutes, publicApiRoutes } from '../../core/routes';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { type StageConfig, stageConfig } from '../../lib/stage-config';
import type { SynthesizedApp } from '../infra/synthesized-app';
import { synthesizedApp, TEST_DEPLOYMENT } from '../infra/synthesized-app';

/** What the files of test/infra/partner-api-stack*.test.ts read the synthesized templates with. */
export interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
}

/** The app the infra project's global setup synthesized, once the calling file's `loadSynthesizedApp` has run. */
export let synthesized: SynthesizedApp;

/** Registers the loading of the synthesized app (templates and validation report) for the calling test file. */
export function loadSynthesizedApp(): void {
  beforeAll(() => {
    synthesized = synthesizedApp();
  });
}

/** A stage's configuration as the synthesized app has it (the test deployment's settings). */
export const configOf = (stage: DeployedStage): StageConfig => stageConfig(stage, TEST_DEPLOYMENT[stage]);

/**
 * Registers the loading of the synthesized app for the calling test file (its other describe blocks
 * read it too), then describes the stack of each deployed stage, `stack PartnerApi-<stage>`, with
 * `tests` given the stage and its configuration.
 */
export function describeEachStack(tests: (stage: DeployedStage, config: StageConfig) => void): void {
  loadSynthesizedApp();
  describe.each(DEPLOYED_STAGES)('stack PartnerApi-%s', (stage) => {
    tests(stage, configOf(stage));
  });
}

export const template = (stage: DeployedStage): Template => synthesized.templates[stage];

export function resources(stage: DeployedStage, type: string): Record<string, CfnResource> {
  return template(stage).findResources(type) as Record<string, CfnResource>;
}

export function only<T>(values: readonly T[], what: string): T {
  expect(values, what).toHaveLength(1);
  const [value] = values;
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
}

/** Logical id of the Lambda function the route table names `name` (its `service-function` tag). */
export function functionIdOf(stage: DeployedStage, name: string): string {
  const ids = Object.entries(resources(stage, 'AWS::Lambda::Function'))
    .filter(([, resource]) =>
      (resource.Properties.Tags as { Key: string; Value: string }[] | undefined)?.some(
        (tag) => tag.Key === 'service-function' && tag.Value === name,
      ),
    )
    .map(([id]) => id);
  return only(ids, `function ${name}`);
}

/** Logical id of the Lambda function whose description starts with `description`. */
export function functionId(stage: DeployedStage, description: string): string {
  const ids = Object.entries(resources(stage, 'AWS::Lambda::Function'))
    .filter(([, resource]) => String(resource.Properties.Description).startsWith(description))
    .map(([id]) => id);
  return only(ids, `function "${description}"`);
}

/** The `live` alias of a function (by its logical id): what API Gateway, event sources and the pipe invoke. */
export function liveAliasId(stage: DeployedStage, functionLogicalId: string): string {
  const ids = Object.entries(resources(stage, 'AWS::Lambda::Alias'))
    .filter(([, alias]) => (alias.Properties.FunctionName as { Ref?: string }).Ref === functionLogicalId)
    .map(([id]) => id);
  return only(ids, `alias of ${functionLogicalId}`);
}

/** Every statement granted to a function's role (its role has no other policy), by its route-table name. */
export function statementsOf(stage: DeployedStage, name: string): Statement[] {
  const fn = resources(stage, 'AWS::Lambda::Function')[functionIdOf(stage, name)];
  const role = fn?.Properties.Role as { 'Fn::GetAtt': [string, string] };
  const roleId = role['Fn::GetAtt'][0];
  expect(
    resources(stage, 'AWS::IAM::Role')[roleId]?.Properties.ManagedPolicyArns,
    'managed policies',
  ).toBeUndefined();
  return Object.values(resources(stage, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

export const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

export const getRouteDescription = (route: (typeof partnerApiRoutes)[number]) =>
  `GET ${API_BASE_PATH}${route.path}:`;
export const AUTHORIZER = 'Partner API key authorizer';
export const pageDescription = (route: (typeof pageRoutes)[number]) =>
  `${route.methods.join(', ')} ${route.path} (page)`;

export const partnerPaths = [
  ...new Set([...partnerApiRoutes, ...publicApiRoutes].map((route) => route.path)),
];
/**
 * Route functions of the API (partner routes and public routes), the authorizer, the pages, the event
 * consumer and the outbound pipe's enrichment.
 */
export const FUNCTION_COUNT =
  partnerApiRoutes.length + publicApiRoutes.length + 1 + pageRoutes.length + 1 + 1;
export const pagePaths = [...new Set(pageRoutes.map((route) => route.path))];
