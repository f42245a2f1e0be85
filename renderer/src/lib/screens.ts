/**
 * The app's screens in navigation order; link texts are the source's own words (SPEC §7). The
 * name is also the screen's heading and page title, the description the line under the heading.
 */
export const SCREENS = [
  {
    id: 'dashboard',
    name: 'Dashboard',
    group: null,
    description: 'Where clients reach this gateway, and what it is doing now.',
  },
  {
    id: 'readers',
    name: 'Readers',
    group: null,
    description: 'Every reader heard from: alive and reading, or silent. Open one for its health, alarms and history.',
  },
  {
    id: 'inventory',
    name: 'Inventory',
    group: null,
    description:
      'The live tag inventory of an endpoint: every EPC its readers saw, where and when last, and how often.',
  },
  {
    id: 'events',
    name: 'Events',
    group: null,
    description: 'What clients have sent, newest first. Open an event to see its payload and who sent it.',
  },
  {
    id: 'endpoints',
    name: 'Endpoints',
    group: 'Client Settings',
    description: 'Each endpoint groups routes under one base path; readers and phones post to the routes.',
  },
  {
    id: 'destinations',
    name: 'Destinations',
    group: 'Client Settings',
    description:
      'Business systems that processed events are delivered to, in order, with retries and dead letters. Suppressed duplicate tag reads are not forwarded.',
  },
  {
    id: 'access-tokens',
    name: 'Access Token',
    group: 'User Settings',
    description: 'Tokens for systems that call OAuth2 routes; each carries one role.',
  },
  {
    id: 'external-users',
    name: 'External User',
    group: 'User Settings',
    description: 'Accounts for clients that call basic routes with a username and password.',
  },
  {
    id: 'roles',
    name: 'Roles',
    group: 'User Settings',
    description: 'Roles open OAuth2 routes to users and access tokens; admin grants management rights.',
  },
  {
    id: 'users',
    name: 'Users',
    group: 'User Settings',
    description: 'Dashboard accounts. Users sign in to the web admin and get bearer tokens with their roles.',
  },
  {
    id: 'settings',
    name: 'Settings',
    group: 'Gateway',
    description: 'Gateway tunables. Changes apply at once, except ports and host.',
  },
  {
    id: 'backup',
    name: 'Backup',
    group: 'Gateway',
    description: 'Export the configuration to an encrypted file, or restore one.',
  },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];
export type ScreenGroup = (typeof SCREENS)[number]['group'];

/** Where a screen sits in the source's menu (Settings > Client Settings > Endpoints). */
export function breadcrumb(group: ScreenGroup): string | null {
  if (group === 'Client Settings' || group === 'User Settings') return `Settings › ${group}`;
  return group;
}

export function screenFromHash(hash: string): ScreenId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return SCREENS.find((s) => s.id === id)?.id ?? 'dashboard';
}

/** What a screen's address names after the screen (`#/events/<id>` → `<id>`), decoded; null for none. */
export function hashItem(hash: string): string | null {
  const item = hash.replace(/^#\/?/, '').split('?')[0]?.split('/')[1];
  if (!item) return null;
  try {
    return decodeURIComponent(item);
  } catch {
    return null;
  }
}

/** The address of one item of a screen, as `hashItem` reads it. */
export const itemHash = (screen: ScreenId, item: string | number): string =>
  `#/${screen}/${encodeURIComponent(String(item))}`;
