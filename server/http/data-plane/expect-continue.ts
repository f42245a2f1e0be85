import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Requests whose client holds its body back until told `100 Continue`, and has not been told yet. */
const awaiting = new WeakSet<IncomingMessage>();

/**
 * Takes `Expect: 100-continue` requests through `handle` like any other, without Node's automatic
 * `100 Continue`: a refusal decided before the body is read (404, 405, 401/403, 415, a declared
 * 413) then reaches the client before it uploads anything. Whoever reads a body first calls
 * `continueIfAwaited`.
 */
export function deferContinue(
  server: Server,
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    awaiting.add(request);
    // Answered without the body (never invited): the connection cannot carry another request
    // while a body may still be on its way, so it closes after the answer.
    response.setHeader('Connection', 'close');
    handle(request, response);
  });
}

/** Before reading a body: invite a client that is waiting for `100 Continue` to send it. */
export function continueIfAwaited(request: IncomingMessage, response: ServerResponse): void {
  if (!awaiting.delete(request)) return;
  response.removeHeader('Connection');
  response.writeContinue();
}

/** The client still waits for `100 Continue`: its body will not come unless invited. */
export function isAwaitingContinue(request: IncomingMessage): boolean {
  return awaiting.has(request);
}
