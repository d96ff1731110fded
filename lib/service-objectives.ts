import type { PartnerApiRouteId } from '../core/routes';

/**
 * The service's objectives (docs/deploying.md#service-objectives): what partners and the platform
 * may count on, each as the share of events that must be good over 30 days. The stage alarms on the
 * rate its error budget burns (lib/constructs/service-objectives.ts), never on one data point.
 */

/** Answers of a partner API route that are not 5xx, as clients received them (its access log). */
export const AVAILABILITY_TARGET = 0.999;

/** Invocations of a route's function within its latency bound. */
export const LATENCY_TARGET = 0.99;

/**
 * p99 bounds of each route's function (`Duration`, the handler's time: no cold start's init, no
 * API Gateway or authorizer). A route is a few DynamoDB requests; pricing signals read a year of
 * reservations at most.
 */
export const ROUTE_LATENCY_MS: Readonly<Record<PartnerApiRouteId, number>> = {
  usage: 300,
  properties: 500,
  pricingSignals: 1_000,
};

/** The platform's events applied within this many seconds of their publish (the envelope's `time`). */
export const EVENT_LAG_SECONDS = 60;

/** This service's events on the outbound bus within this many seconds of their change's commit. */
export const OUTBOUND_LAG_SECONDS = 120;

/**
 * The canary's runs that pass (every route as the contract says, with a key of its own): the
 * availability partners see, measured from outside when there is no traffic. One failed run an hour
 * (every 5 minutes) spends budget slower than the fast burn; two page.
 */
export const CANARY_TARGET = 0.99;

/** Events of the two flows that meet their lag bound. */
export const LAG_TARGET = 0.99;

/**
 * The burn rates alarmed, each on a long window and a short one together (the long proves it is
 * sustained, the short that it is still going on), after Google's SRE workbook for a 30-day window
 * (https://sre.google/workbook/alerting-on-slos/): 14.4 × for 1 hour spends 2 % of the month's budget
 * (page), 6 × for 6 hours 5 % (ticket).
 */
export const BURN_ALARMS = [
  { severity: 'fast', burnRate: 14.4, longMinutes: 60, shortMinutes: 5 },
  { severity: 'slow', burnRate: 6, longMinutes: 360, shortMinutes: 30 },
] as const;
