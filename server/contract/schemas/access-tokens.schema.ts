import { extend, named, optional, s } from '../schema';

export const ACCESS_TOKEN = named(
  'AccessToken',
  s.object({
    id: s.integer(),
    name: s.string(),
    role: s.string(),
    expiryDate: s.string({ format: 'date' }),
    description: s.string(),
    createdDate: s.string({ format: 'date-time' }),
    expiryInDays: s.integer(),
    status: s.enum(['Active', 'Expired']),
  }),
);

/** Returned by create and regenerate only: the one time the token value is ever shown. */
export const ACCESS_TOKEN_WITH_VALUE = extend(
  ACCESS_TOKEN,
  { token: s.string({ description: '`gwat_…`; shown once.' }) },
  'AccessTokenWithValue',
);

export const ACCESS_TOKEN_INPUT = named(
  'AccessTokenInput',
  s.object({
    name: s.string({ max: 128, label: 'Token Name' }),
    role: s.string({ max: 64, label: 'Role' }),
    expiryDate: s.string({
      label: 'Expiry Date',
      format: 'date',
      description: 'Today or later, in the time zone setting.',
    }),
    description: optional(s.string({ max: 1024, label: 'Description' }), ''),
  }),
);
