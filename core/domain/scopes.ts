/**
 * Read scopes a partner key can carry; each route of `core/routes.ts` requires one. A new
 * scope is one entry here and one in {@link SCOPE_SOURCE}; agreements and keys store scope names,
 * so no stored data changes (docs/design/api-keys.md). The docs' scope table and sentence are
 * written from these (`npm run docs`), and the test partners, the demo partner, the deploy
 * verification's partner and the bench's keys get every scope from {@link GRANTABLE_SCOPES}.
 */
export const SCOPES = ['metrics:read', 'revenue:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** Where each scope comes from, in the words a partner reads when a key lacks it. */
export const SCOPE_SOURCE: Readonly<Record<Scope, string>> = {
  'metrics:read': 'every partner agreement',
  'revenue:read': 'the revenue-management data agreement',
};

/** The 403 detail when a key lacks the scope a route requires. */
export function missingScopeDetail(scope: Scope): string {
  return `This endpoint needs the ${scope} scope, which your key does not carry. It comes with ${SCOPE_SOURCE[scope]}.`;
}

/** Scopes every agreement includes, whatever else it grants. */
export const BASE_SCOPES: readonly Scope[] = ['metrics:read'];

/** Scopes an agreement may grant beyond the base scopes: all of them make a key that reads every route. */
export const GRANTABLE_SCOPES: readonly Scope[] = SCOPES.filter((scope) => !BASE_SCOPES.includes(scope));

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** An agreement's scopes: the base scopes and the known scopes granted, in {@link SCOPES} order. */
export function agreementScopes(granted: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => BASE_SCOPES.includes(scope) || granted.includes(scope));
}

/** Scopes from the authorizer context's space-separated string; unknown names are dropped. */
export function parseScopeList(value: unknown): Scope[] {
  return typeof value === 'string' ? value.split(' ').filter(isScope) : [];
}
