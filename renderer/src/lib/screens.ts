/** The app's screens in navigation order; link texts are the source's own words (SPEC §7). */
export const SCREENS = [
  { id: 'dashboard', name: 'Dashboard', group: null },
  { id: 'events', name: 'Events', group: null },
  { id: 'endpoints', name: 'Endpoints', group: 'Client Settings' },
  { id: 'destinations', name: 'Destinations', group: 'Client Settings' },
  { id: 'access-tokens', name: 'Access Token', group: 'User Settings' },
  { id: 'external-users', name: 'External User', group: 'User Settings' },
  { id: 'roles', name: 'Roles', group: 'User Settings' },
  { id: 'users', name: 'Users', group: 'User Settings' },
  { id: 'settings', name: 'Settings', group: 'Gateway' },
  { id: 'backup', name: 'Backup', group: 'Gateway' },
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
