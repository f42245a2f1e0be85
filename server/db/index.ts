export { createDb, type Db, type DbConfig, type DatabaseKind } from './create-db';
