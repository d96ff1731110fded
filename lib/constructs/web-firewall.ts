import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { FirewallLimit } from '../stage-config';

/** The AWS managed rule groups every web ACL of the service runs (none with a subscription fee). */
export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
] as const;

const PER_IP_RULE = 'requests-per-ip';

/** The response of the per-IP limit: what its clients read (a problem for the API, a page for browsers). */
export interface FirewallResponse {
  readonly contentType: 'APPLICATION_JSON' | 'TEXT_HTML';
  readonly body: string;
  /** Any header but Content-Type (WAF sets that from `contentType`). */
  readonly headers: Readonly<Record<string, string>>;
}

export interface WebFirewallProps {
  /** The REST API stage it protects. */
  readonly stage: Stage;
  /** Names the web ACL and prefixes its CloudWatch metrics, e.g. `partner-api-sandbox`. */
  readonly name: string;
  readonly requestsPerIp: FirewallLimit;
  /** 429 of the per-IP limit. */
  readonly throttledResponse: FirewallResponse;
  /**
   * Rules of the common rule set that only count here, because requests they block are
   * legitimate for this API (a partner's HTTP client without a User-Agent, a wizard form over
   * 8 KB, a long activation token). Blocks of the other managed rules get WAF's 403, which API
   * Gateway's WAF_FILTERED gateway response words.
   * @default - none: every rule blocks
   */
  readonly commonRulesThatCount?: readonly string[];
}

/**
 * A WAFv2 web ACL in front of one REST API stage: a per-IP rate limit (429 with a body its
 * clients read, and Retry-After), AWS's IP reputation list, the common rule set and known bad
 * inputs. An abusive client is refused before it spends the stage throttle every client shares
 * or invokes the authorizer.
 */
export class WebFirewall extends Construct {
  public readonly webAcl: CfnWebACL;
  /** The web ACL's name: the `WebACL` dimension of its AWS/WAFV2 metrics. */
  public readonly webAclName: string;
  /** The per-IP rule's metric name: the `Rule` dimension of its AWS/WAFV2 metrics. */
  public readonly perIpRuleMetricName: string;

  constructor(scope: Construct, id: string, props: WebFirewallProps) {
    super(scope, id);
    const { requests, windowSeconds } = props.requestsPerIp;
    if (!Number.isInteger(requests) || requests < 10)
      throw new Error(`${props.name}: a WAF rate limit is a whole number of at least 10, not ${requests}.`);
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${props.name}-${metricName}`,
      sampledRequestsEnabled: true,
    });
    this.webAclName = props.name;
    this.perIpRuleMetricName = visibility(PER_IP_RULE).metricName;
    const countOnly = props.commonRulesThatCount ?? [];
    const managed = (
      priority: number,
      name: (typeof MANAGED_RULE_GROUPS)[number],
    ): CfnWebACL.RuleProperty => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ...(name === 'AWSManagedRulesCommonRuleSet' && countOnly.length > 0
            ? { ruleActionOverrides: countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })) }
            : {}),
        },
      },
      visibilityConfig: visibility(name),
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: props.name,
      description: `Per-IP limit and AWS managed rules in front of ${props.name}`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('all'),
      customResponseBodies: {
        throttled: {
          contentType: props.throttledResponse.contentType,
          content: props.throttledResponse.body,
        },
      },
      rules: [
        {
          // First: a flood is refused before the managed rules spend capacity on it.
          name: PER_IP_RULE,
          priority: 0,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'throttled',
                responseHeaders: Object.entries(props.throttledResponse.headers).map(([name, value]) => ({
                  name,
                  value,
                })),
              },
            },
          },
          statement: {
            rateBasedStatement: {
              limit: requests,
              evaluationWindowSec: windowSeconds,
              aggregateKeyType: 'IP',
            },
          },
          visibilityConfig: visibility(PER_IP_RULE),
        },
        ...MANAGED_RULE_GROUPS.map((name, index) => managed(index + 1, name)),
      ],
    });
    const association = new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // The stage must exist before it can be associated.
    association.node.addDependency(props.stage);
  }
}
