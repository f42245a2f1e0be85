import { api } from './api';

/**
 * The role names the forms offer (a user's roles, an access token's role, an OAuth2 route's
 * roles), one list for every screen: each loads it afresh beside its own list.
 */
export const roles = $state<{ names: string[] }>({ names: [] });

export async function loadRoleNames(): Promise<void> {
  roles.names = (await api.listRoles()).map((role) => role.name);
}
