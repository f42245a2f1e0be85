export * from './dto';
export * from './errors';
export * from './operations';
export * from './admin-routes';
export * from './paths';
