import { named, optional, s } from '../schema';

export const ROLE_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export const ROLE = named(
  'Role',
  s.object({ id: s.integer(), name: s.string(), description: s.string(), builtIn: s.boolean() }),
);

export const ROLE_INPUT = named(
  'RoleInput',
  s.object({
    name: s.string({
      label: 'Role Name',
      pattern: ROLE_NAME,
      patternMessage: 'Role name must start with a letter and use only letters, digits, ".", "_" or "-" (at most 64)',
    }),
    description: optional(s.string({ max: 1024 }), ''),
  }),
);
