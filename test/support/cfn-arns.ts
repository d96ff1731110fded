/**
 * An ARN in the stack's own partition and region as CDK writes it in a template:
 * `arn:<partition>:<service>:<region>` and then `rest`, in one `Fn::Join`.
 */
export const regionalArn = (service: string, ...rest: unknown[]) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:${service}:`, { Ref: 'AWS::Region' }, ...rest]],
});
