/**
 * How the screens word a destination's delivery (SPEC §11): states and dead-letter reasons in
 * people's words, the refusal to delete one still in use, and the dashboard's warnings. Pure
 * functions, so the Destinations screen, the dashboard and the unit tests agree.
 */
import type {
  DeadLetterReason,
  DestinationAuthType,
  DestinationState,
  DestinationSummary,
} from '../../../server/contract/dto';
import type { RoleReference } from '../../../server/contract/errors';
import { formatZonedTime } from '../events/event-text';

/** A state as a word and a sentence: the badge shows the word, never the colour alone. */
export const STATE_TEXT = {
  healthy: { word: 'Healthy', meaning: 'Delivering; nothing is waiting for a retry.' },
  retrying: { word: 'Retrying', meaning: 'The last delivery failed; the gateway is trying again.' },
  failing: { word: 'Failing', meaning: 'Deliveries keep failing, or a batch was dead-lettered.' },
  paused: { word: 'Paused', meaning: 'Inactive: events are collected and nothing is sent.' },
} as const satisfies Record<DestinationState, { word: string; meaning: string }>;

export const REASON_TEXT = {
  http_status: 'Refused by the receiver',
  max_retry_age: 'Retried for too long',
  outbox_full: 'Outbox was full',
} as const satisfies Record<DeadLetterReason, string>;

export const AUTH_TEXT = {
  none: 'None',
  basic: 'Basic (username and password)',
  bearer: 'Bearer token',
  hmac: 'HMAC-SHA256 signature',
} as const satisfies Record<DestinationAuthType, string>;

/** A reason the gateway did not name yet (a newer gateway's) is shown as it is. */
export const reasonText = (reason: string): string => (REASON_TEXT as Record<string, string>)[reason] ?? reason;

/** The share of `maxOutboxItems` past which the dashboard warns that an outbox is almost full. */
export const OUTBOX_WARNING_SHARE = 0.8;

/** The dashboard's warnings: an outbox past its warning share, or a destination failing. */
export function destinationWarnings(destinations: DestinationSummary[], maxOutboxItems: number | null): string[] {
  return destinations.flatMap((destination) => {
    const lines: string[] = [];
    if (maxOutboxItems !== null && destination.backlog > maxOutboxItems * OUTBOX_WARNING_SHARE) {
      const percent = Math.min(100, Math.floor((destination.backlog / maxOutboxItems) * 100));
      lines.push(
        `Outbox almost full: “${destination.name}” holds ${destination.backlog.toLocaleString()} of ${maxOutboxItems.toLocaleString()} items (${percent} %). Past the limit, new items are dead-lettered.`,
      );
    }
    if (destination.state === 'failing')
      lines.push(`“${destination.name}” is failing: deliveries keep failing. See Destinations for its last error.`);
    return lines;
  });
}

/** A 409 `destination_in_use` in words: which routes still deliver to it, and what to do. */
export function inUseText(name: string, references: RoleReference[]): string {
  const routes = references.map((reference) => `“${reference.name}”`).join(', ');
  const noun = references.length === 1 ? 'route' : 'routes';
  return `“${name}” still receives the events of ${noun} ${routes}. Remove it from ${references.length === 1 ? 'that route' : 'those routes'} under Endpoints first, then delete it.`;
}

/** An instant in the gateway's time zone, named; "—" for none. */
export function zonedTime(iso: string | null | undefined, timeZone: string): string {
  return iso ? `${formatZonedTime(iso, timeZone)} ${timeZone}` : '—';
}

/**
 * A receiver's answer in one line: "HTTP 503: Service busy", "connect ECONNREFUSED", or just
 * "HTTP 400" when the gateway's message already is the status (it says no more than that).
 */
export function answerText(status: number | null, message: string | null): string {
  const code = status === null ? '' : `HTTP ${status}`;
  if (!message || message === code) return code || '—';
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}
