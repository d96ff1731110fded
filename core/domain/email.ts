/** E-mail addresses identify host accounts case-insensitively (docs/design/activation-links.md). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
