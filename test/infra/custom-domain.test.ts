import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { addServiceStacks } from '../../lib/partner-api-stack';
import type { CustomDomain } from '../../lib/stage-config';
import { STACK_OUTPUTS, stackName, stageConfig } from '../../lib/stage-config';
import { TEST_CUSTOM_DOMAIN, TEST_DEPLOYMENT } from './app-synthesis';

/**
 * A sandbox given names, and one moving to them (`keepExecuteApi`): the same stack, synthesized
 * without bundling. Production's names are in partner-api-stack.test.ts.
 */
type Resource = { Type: string; Properties: Record<string, unknown> };
type TemplateJson = { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };

function sandboxWith(customDomain: CustomDomain): TemplateJson {
  const outdir = mkdtempSync(join(tmpdir(), 'partner-api-domain-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const [stack] = addServiceStacks(app, [
      stageConfig('sandbox', { ...TEST_DEPLOYMENT.sandbox, customDomain }),
    ]);
    if (!stack) throw new Error('no sandbox stack');
    return app.synth().getStackByName(stack.stackName).template as TemplateJson;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const ofType = (template: TemplateJson, type: string) =>
  Object.values(template.Resources).filter((resource) => resource.Type === type);

const names = {
  ...TEST_CUSTOM_DOMAIN,
  apiDomain: 'api.sandbox.hostly.io',
  pagesDomain: 'go.sandbox.hostly.io',
};

describe('a sandbox on names of its own', () => {
  it('serves both APIs there, mints links there, and turns the execute-api addresses off', () => {
    const template = sandboxWith(names);

    expect(
      ofType(template, 'AWS::ApiGateway::DomainName')
        .map((domain) => domain.Properties.DomainName)
        .sort(),
    ).toEqual([names.apiDomain, names.pagesDomain]);
    for (const api of ofType(template, 'AWS::ApiGateway::RestApi'))
      expect(api.Properties.DisableExecuteApiEndpoint).toBe(true);
    expect(template.Outputs[STACK_OUTPUTS.apiBaseUrl]?.Value).toBe(
      `https://${names.apiDomain}/partner-api/v1`,
    );
    expect(template.Outputs[STACK_OUTPUTS.activationBaseUrl]?.Value).toBe(`https://${names.pagesDomain}`);
  });

  it('keeps the execute-api addresses answering while it moves (keepExecuteApi), links already on the names', () => {
    const template = sandboxWith({ ...names, keepExecuteApi: true });

    expect(ofType(template, 'AWS::ApiGateway::DomainName')).toHaveLength(2);
    for (const api of ofType(template, 'AWS::ApiGateway::RestApi'))
      expect(api.Properties.DisableExecuteApiEndpoint).toBe(false);
    expect(template.Outputs[STACK_OUTPUTS.activationBaseUrl]?.Value).toBe(`https://${names.pagesDomain}`);
  });
});
