export * from './dto';
export * from './errors';
export * from './operations';
