import { fileURLToPath } from 'node:url';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { App } from 'aws-cdk-lib';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/** Our own Guard rules (one file per concern), beside AWS's Control Tower rules. */
export const GUARD_RULES_DIRECTORY = fileURLToPath(new URL('./guard-rules', import.meta.url));

/**
 * The checks every synthesis of the app runs (`cdk synth`, `cdk deploy`, the infra tests): cdk-nag's
 * AwsSolutions pack, and cfn-guard with AWS Control Tower's proactive-control rules (the plugin's
 * default) and the rules in lib/guard-rules/. An unacknowledged finding fails the synthesis; a
 * finding is acknowledged where it arises, with its reason (lib/constructs/nag.ts).
 */
export function attachTemplateChecks(app: App): void {
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app),
    new CfnGuardValidator({ controlTowerRulesEnabled: true, rules: [GUARD_RULES_DIRECTORY] }),
  );
}
