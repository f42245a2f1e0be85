import { extend, named, optional, s } from '../schema';

export const USERNAME = /^[A-Za-z0-9_]{1,64}$/;
const USERNAME_RULES = {
  pattern: USERNAME,
  patternMessage: 'Username may use only letters, digits and underscore (1 to 64)',
  label: 'Username',
};

export const USER = named(
  'User',
  s.object({
    id: s.integer(),
    username: s.string(),
    displayName: s.string(),
    roles: s.array(s.string()),
    active: s.boolean(),
    createdAt: s.string({ format: 'date-time' }),
  }),
);

/** On update an omitted password keeps the current one (SPEC §10). */
export const USER_UPDATE_INPUT = named(
  'UserUpdateInput',
  s.object({
    username: s.string(USERNAME_RULES),
    displayName: optional(s.string({ max: 128 }), ''),
    roles: optional(s.array(s.string(), { label: 'Roles' }), []),
    active: optional(s.boolean(), true),
    password: optional(s.password()),
  }),
);

export const USER_CREATE_INPUT = extend(USER_UPDATE_INPUT, { password: s.password() }, 'UserCreateInput');

export const EXTERNAL_USER = named(
  'ExternalUser',
  s.object({
    id: s.integer(),
    firstName: s.string(),
    lastName: s.string(),
    username: s.string(),
    routes: s.array(s.string(), { description: 'Names of routes with authType `basic`.' }),
    active: s.boolean(),
  }),
);

export const EXTERNAL_USER_UPDATE_INPUT = named(
  'ExternalUserUpdateInput',
  s.object({
    firstName: optional(s.string({ max: 128, label: 'First Name' }), ''),
    lastName: optional(s.string({ max: 128, label: 'Last Name' }), ''),
    username: s.string(USERNAME_RULES),
    routes: optional(
      s.array(s.string(), { label: 'Endpoint(s)', description: 'Names of routes with authType `basic`.' }),
      [],
    ),
    active: optional(s.boolean(), true),
    password: optional(s.password()),
  }),
);

export const EXTERNAL_USER_CREATE_INPUT = extend(
  EXTERNAL_USER_UPDATE_INPUT,
  {
    routes: optional(
      s.array(s.string(), {
        label: 'Endpoint(s)',
        minItems: 1,
        minItemsMessage: 'Select at least one route with Auth Type basic',
        description: 'Names of routes with authType `basic`.',
      }),
      [],
    ),
    password: s.password(),
  },
  'ExternalUserCreateInput',
);
