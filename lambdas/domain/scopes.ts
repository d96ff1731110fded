/** Read scopes a partner key can carry (spec 5). */
export const SCOPES = ['metrics:read', 'revenue:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** Where each scope comes from, in the words a partner reads when a key lacks it. */
export const SCOPE_SOURCE: Readonly<Record<Scope, string>> = {
  'metrics:read': 'every partner agreement',
  'revenue:read': 'the revenue-management data agreement',
};

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
