/**
 * How long audit events are kept, in days, unless a stage says otherwise (`auditRetentionDays` in
 * `lib/stage-config.ts`). Side-effect free: the stack, the local runtime and the code read it.
 */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;
