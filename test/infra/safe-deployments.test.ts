import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Alias, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AUTHORIZER,
  EVENT_CONSUMER,
  OUTBOUND_ENRICHMENT,
  pageFunctionName,
  partnerApiRoutes,
} from '../../core/routes';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { SafeDeployments } from '../../lib/constructs/safe-deployments';
import { LIVE_ALIAS } from '../../lib/constructs/service-function';
import { stackName, stageSettings } from '../../lib/stage-config';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp } from './synthesized-app';

interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly UpdatePolicy?: {
    CodeDeployLambdaAliasUpdate?: { ApplicationName: unknown; DeploymentGroupName: unknown };
  };
}

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizedApp();
});

const resourcesOf = (stage: DeployedStage, type: string): [string, CfnResource][] =>
  Object.entries(synthesized.templates[stage].findResources(type)) as [string, CfnResource][];

/** Each function's name in the route table (its `service-function` tag), by logical id. */
const functionNames = (stage: DeployedStage) =>
  new Map(
    resourcesOf(stage, 'AWS::Lambda::Function').map(([id, fn]) => [
      id,
      (fn.Properties.Tags as { Key: string; Value: string }[]).find((tag) => tag.Key === 'service-function')
        ?.Value,
    ]),
  );

/** The deployment group of each function (by its name), with the names of the alarms it watches. */
function deploymentGroups(stage: DeployedStage) {
  const alarmNames = new Map(
    resourcesOf(stage, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => [
      id,
      String(alarm.Properties.AlarmName),
    ]),
  );
  return new Map(
    resourcesOf(stage, 'AWS::CodeDeploy::DeploymentGroup').map(([id, group]) => {
      const alarms = (group.Properties.AlarmConfiguration as { Alarms: { Name: { Ref: string } }[] }).Alarms;
      return [
        String(group.Properties.DeploymentGroupName),
        {
          id,
          properties: group.Properties,
          alarms: alarms.map(
            (alarm) => alarmNames.get(alarm.Name.Ref) ?? `not an alarm of the stack: ${alarm.Name.Ref}`,
          ),
        },
      ];
    }),
  );
}

describe.each(DEPLOYED_STAGES)('safe deployments (%s)', (stage) => {
  const prefix = stackName(stage);

  it('puts every function behind a `live` alias on its current version, moved by its own deployment group', () => {
    const names = functionNames(stage);
    const groups = deploymentGroups(stage);
    const aliases = resourcesOf(stage, 'AWS::Lambda::Alias');

    expect(aliases).toHaveLength(names.size);
    for (const [, alias] of aliases) {
      const functionId = (alias.Properties.FunctionName as { Ref: string }).Ref;
      const name = names.get(functionId);
      expect(alias.Properties.Name).toBe(LIVE_ALIAS);
      // A published version of that function (AWS::Lambda::Version), not $LATEST.
      const version = (alias.Properties.FunctionVersion as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
      expect(synthesized.templates[stage].toJSON().Resources[version[0]]).toMatchObject({
        Type: 'AWS::Lambda::Version',
        Properties: { FunctionName: { Ref: functionId } },
      });
      const group = groups.get(String(name));
      expect(group, `deployment group of ${name}`).toBeDefined();
      expect(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate?.DeploymentGroupName).toEqual({
        Ref: group?.id,
      });
    }
    expect(new Set(groups.keys())).toEqual(new Set(names.values()));
  });

  it(`shifts traffic as the stage says (${stageSettings[stage].trafficShifting}) and rolls back on failure, stop or alarm`, () => {
    const expected = {
      sandbox: 'CodeDeployDefault.LambdaAllAtOnce',
      production: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
    }[stage];
    for (const [name, group] of deploymentGroups(stage)) {
      expect(group.properties.DeploymentConfigName, name).toBe(expected);
      expect(group.properties.AutoRollbackConfiguration, name).toEqual({
        Enabled: true,
        Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
      });
      expect(group.properties.AlarmConfiguration, name).toMatchObject({ Enabled: true });
      expect(group.alarms.length, name).toBeLessThanOrEqual(10);
    }
  });

  it('watches, for each function, the alarms of what it serves', () => {
    const groups = deploymentGroups(stage);
    const watched = (name: string) => groups.get(name)?.alarms ?? [];
    const partnerApi = [
      `${prefix}-partnerApi-5xx-rate`,
      `${prefix}-partnerApi-5xx-answered-rate`,
      `${prefix}-partnerApi-latency-p99`,
      `${prefix}-authorizer-failures`,
    ];
    expect(watched(AUTHORIZER.id).sort()).toEqual([...partnerApi].sort());
    for (const route of partnerApiRoutes)
      expect(watched(route.id).sort()).toEqual([...partnerApi, `${prefix}-${route.id}-errors`].sort());
    expect(watched(pageFunctionName('activate'))).toEqual(
      expect.arrayContaining([
        `${prefix}-pages-5xx-rate`,
        `${prefix}-pages-5xx-answered-rate`,
        `${prefix}-pages-latency-p99`,
        `${prefix}-${pageFunctionName('activate')}-errors`,
      ]),
    );
    expect(watched(EVENT_CONSUMER.id)).toEqual(
      expect.arrayContaining([`${prefix}-events-dead-lettered`, `${prefix}-${EVENT_CONSUMER.id}-errors`]),
    );
    expect(watched(OUTBOUND_ENRICHMENT.id)).toEqual(
      expect.arrayContaining([
        `${prefix}-outbound-dead-lettered`,
        `${prefix}-${OUTBOUND_ENRICHMENT.id}-errors`,
      ]),
    );
    // What no deploy causes or cures is watched by none: throttles, leaked keys, backups.
    for (const [name, group] of groups)
      expect(
        group.alarms.filter((alarm) => /throttled|leak|backup/.test(alarm)),
        name,
      ).toEqual([]);
  });

  it('reads the platform’s events through the alias too', () => {
    const [mapping] = resourcesOf(stage, 'AWS::Lambda::EventSourceMapping');
    expect(JSON.stringify(mapping?.[1].Properties.FunctionName)).toContain(`:${LIVE_ALIAS}`);
  });

  it('alarms when the p99 latency of an API stays high for 3 of 5 minutes', () => {
    synthesized.templates[stage].hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${prefix}-partnerApi-latency-p99`,
      MetricName: 'Latency',
      Namespace: 'AWS/ApiGateway',
      ExtendedStatistic: 'p99',
      Period: 60,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      Threshold: stageSettings[stage].alarms.latencyP99Ms.partnerApi,
    });
  });
});

describe('a deploy that ignores the alarms (-c rollbackAlarms:<stage>=ignore)', () => {
  const groupOf = (rollbackAlarms: 'watch' | 'ignore', alarmCount = 1) => {
    const stack = new Stack(new App(), 'Deployed');
    const fn = new LambdaFunction(stack, 'Handler', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({});'),
    });
    const live = new Alias(stack, 'Live', { aliasName: LIVE_ALIAS, version: fn.currentVersion });
    const alarms = Array.from(
      { length: alarmCount },
      (_, index) =>
        new Alarm(stack, `Alarm${index}`, {
          metric: new Metric({ namespace: 'Test', metricName: 'Errors' }),
          threshold: 1,
          evaluationPeriods: 1,
        }),
    );
    new SafeDeployments(stack, 'Deployments', {
      name: 'Deployed',
      trafficShifting: 'canary-10-percent-5-minutes',
      functions: new Map([['handler', { serviceFunction: { live }, alarms }]]),
      rollbackAlarms,
    });
    return Template.fromStack(stack).findResources('AWS::CodeDeploy::DeploymentGroup');
  };

  it('keeps the alarms in the group but turns their watch off for this deploy only', () => {
    const watched = Object.values(groupOf('watch'))[0];
    const ignored = Object.values(groupOf('ignore'))[0];

    expect(watched?.Properties.AlarmConfiguration).toMatchObject({ Enabled: true });
    expect(ignored?.Properties.AlarmConfiguration).toMatchObject({ Enabled: false });
    expect(ignored?.Properties.AlarmConfiguration.Alarms).toHaveLength(1);
  });

  it('refuses a group watching more alarms than CodeDeploy takes (10), or none', () => {
    expect(() => groupOf('watch', 11)).toThrow(/1 to 10 alarms, not 11/);
    expect(() => groupOf('watch', 0)).toThrow(/1 to 10 alarms, not 0/);
  });
});
