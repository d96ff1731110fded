import type { PageResponse } from './html';
import { staticMessagePage } from './html';

/** `a minute`, `5 minutes`, `90 seconds`. */
export function durationText(seconds: number): string {
  if (seconds % 60 !== 0) return `${seconds} seconds`;
  return seconds === 60 ? 'a minute' : `${seconds / 60} minutes`;
}

/**
 * The page the web firewall answers when one network asks for pages too often (a static body:
 * the firewall cannot run code). Hosts behind it read what happened and what to do.
 */
export function firewallThrottledPage(windowSeconds: number): PageResponse {
  const wait = durationText(windowSeconds);
  return staticMessagePage(
    429,
    'Too many requests from your network',
    <>
      <p>
        These pages were asked for too often from your network, so we are pausing them for you for a moment to
        keep them available for everyone.
      </p>
      <p>
        Wait {wait}, then reload this page. Your link keeps working. If you were sending a form, it was not
        saved: send it again after the wait.
      </p>
    </>,
    { 'Retry-After': String(windowSeconds) },
  );
}
