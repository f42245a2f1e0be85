import { ADMIN_HTTP_ROUTES } from './admin-routes';
import type { ErrorData } from './errors';
import type { OPERATION_SCHEMAS } from './operation-schemas';
import type { TypeOf } from './schema';

type Table = typeof OPERATION_SCHEMAS;
type Prettify<T> = { [K in keyof T]: T[K] } & {};
type IdOf<E> = E extends { id: infer I } ? { id: TypeOf<I> } : unknown;
type InputOf<E> = E extends { input: infer I } ? TypeOf<I> : unknown;

/** The path's `:id` and the body or query, as one object; `void` when the operation takes neither. */
type OperationInputOf<E> = E extends { id: unknown } | { input: unknown } ? Prettify<IdOf<E> & InputOf<E>> : void;
type OperationOutputOf<E> = E extends { output: infer O } ? ([O] extends [null] ? void : TypeOf<O>) : never;

/**
 * Every management operation with its input and output, read from the one table that lists
 * them (server/contract/operation-schemas.ts). The services implement it; the HTTP admin routes,
 * the IPC handler table, the preload bridge and the renderer's `api` module are typed against
 * it: an operation added to that table without a handler in each of them fails `tsc`.
 */
export type Operations = {
  [K in keyof Table]: { input: OperationInputOf<Table[K]>; output: OperationOutputOf<Table[K]> };
};

export type OperationName = keyof Operations;
export type OperationInput<K extends OperationName> = Operations[K]['input'];
export type OperationOutput<K extends OperationName> = Operations[K]['output'];

/** Who performs a call: recorded in the audit log as `user:<username>` or `cli`. */
export interface CallContext {
  actor: string;
}

/**
 * The server side: every operation, given the caller. Inputs arrive as `unknown` because every
 * transport delivers untrusted data; the services validate them at run time.
 */
export type GatewayHandlers = {
  [K in OperationName]: (input: unknown, context: CallContext) => Promise<OperationOutput<K>>;
};

/** The client side (renderer, preload): the transport supplies the caller. */
export type GatewayApi = {
  [K in OperationName]: (input: OperationInput<K>) => Promise<OperationOutput<K>>;
};

/** How results cross IPC: thrown errors lose their fields there, so failures travel as data. */
export type IpcResult<T> = { ok: true; data: T } | ({ ok: false } & ErrorData);

/** What the preload exposes as `window.api`: each operation, answering with an IpcResult. */
export type IpcBridge = {
  [K in OperationName]: (input: OperationInput<K>) => Promise<IpcResult<OperationOutput<K>>>;
};

/** Every operation name at run time (IPC binding, preload): the route table's, which has each one. */
export const OPERATION_NAMES = Object.keys(ADMIN_HTTP_ROUTES) as OperationName[];
