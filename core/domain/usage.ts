/** The usage report of GET /usage (seats: docs/design/activation-links.md): never a host e-mail address. */
export interface UsageReport {
  partner_id: number;
  generated_at: string;
  active_seats: number;
  hosts: { host_user_id: number; active_seats: number }[];
}

export function usageReport(
  partnerId: number,
  hosts: readonly { hostUserId: number; activeSeats: number }[],
  nowMs: number,
): UsageReport {
  const entries = hosts
    .map((host) => ({ host_user_id: host.hostUserId, active_seats: host.activeSeats }))
    .sort((a, b) => a.host_user_id - b.host_user_id);
  return {
    partner_id: partnerId,
    generated_at: new Date(nowMs).toISOString(),
    active_seats: entries.reduce((sum, host) => sum + host.active_seats, 0),
    hosts: entries,
  };
}
