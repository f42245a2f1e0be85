/** Every schema of the management contract, one file per resource. */
export * from './endpoints.schema';
export * from './roles.schema';
export * from './users.schema';
export * from './access-tokens.schema';
export * from './settings.schema';
export * from './tls.schema';
export * from './activity.schema';
export * from './backup.schema';
export * from './destinations.schema';
export * from './readers.schema';
export * from './refusals.schema';
export * from './inventory.schema';
