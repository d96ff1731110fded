/** Read scopes a partner key can carry (spec 5). */
export const SCOPES = ['metrics:read', 'revenue:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** `metrics:read` always; `revenue:read` only when the agreement includes revenue-management data. */
export function scopesForAgreement(revenueAccess: boolean): Scope[] {
  return revenueAccess ? ['metrics:read', 'revenue:read'] : ['metrics:read'];
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Scopes from the authorizer context's space-separated string; unknown names are dropped. */
export function parseScopeList(value: unknown): Scope[] {
  return typeof value === 'string' ? value.split(' ').filter(isScope) : [];
}
