import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { addServiceStacks } from '../../lib/partner-api-stack';
import type { CustomDomain } from '../../lib/stage-config';
import { STACK_OUTPUTS, stageConfig } from '../../lib/stage-config';
import { TEST_CUSTOM_DOMAIN, TEST_DEPLOYMENT } from './app-synthesis';

/**
 * A sandbox given names, its `execute-api` address on (the default) and off: the same stack, synthesized
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
  it('serves both APIs there and mints links there, the execute-api addresses still answering (the default)', () => {
    const template = sandboxWith(names);

    expect(
      ofType(template, 'AWS::ApiGateway::DomainName')
        .map((domain) => domain.Properties.DomainName)
        .sort(),
    ).toEqual([names.apiDomain, names.pagesDomain]);
    // A stage deployed before its names keeps answering where partners call it, until turned off.
    for (const api of ofType(template, 'AWS::ApiGateway::RestApi'))
      expect(api.Properties.DisableExecuteApiEndpoint).toBe(false);
    expect(template.Outputs[STACK_OUTPUTS.apiBaseUrl]?.Value).toBe(
      `https://${names.apiDomain}/partner-api/v1`,
    );
    expect(template.Outputs[STACK_OUTPUTS.activationBaseUrl]?.Value).toBe(`https://${names.pagesDomain}`);
  });

  it('turns the execute-api addresses off when asked (executeApi: off), once partners have moved', () => {
    const template = sandboxWith({ ...names, executeApi: 'off' });

    expect(ofType(template, 'AWS::ApiGateway::DomainName')).toHaveLength(2);
    for (const api of ofType(template, 'AWS::ApiGateway::RestApi'))
      expect(api.Properties.DisableExecuteApiEndpoint).toBe(true);
    expect(template.Outputs[STACK_OUTPUTS.activationBaseUrl]?.Value).toBe(`https://${names.pagesDomain}`);
  });
});
