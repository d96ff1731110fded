/** E-mail addresses identify host accounts case-insensitively (DESIGN.md "Provisioning"). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
