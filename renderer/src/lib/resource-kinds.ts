import type { FieldScope } from './field-labels';

/**
 * The list-and-form screens' resources in words: how messages name one ("Deleted user “x”"),
 * and the New button (the source's own words, SPEC §7). A kind is also the scope of its form's
 * labels (FIELD_LABELS).
 */
export const RESOURCE_KINDS = {
  user: { noun: 'user', newLabel: 'New User' },
  externalUser: { noun: 'external user', newLabel: 'New External User' },
  role: { noun: 'role', newLabel: 'New Role' },
  accessToken: { noun: 'access token', newLabel: 'Add AccessToken' },
  endpoint: { noun: 'endpoint', newLabel: '+ New Endpoint' },
  destination: { noun: 'destination', newLabel: 'New Destination' },
} as const satisfies Partial<Record<FieldScope, { noun: string; newLabel: string }>>;

export type ResourceKind = keyof typeof RESOURCE_KINDS;
