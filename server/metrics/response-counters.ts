import { Counter } from './counter';

/** The classes a final response can have (1xx are interim, never counted). */
const CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/** `404` → `4xx`; anything outside 100–599 (which Koa never sends) counts as `5xx`. */
export const statusClass = (status: number): string =>
  status >= 100 && status <= 599 ? `${Math.floor(status / 100)}xx` : '5xx';

/**
 * HTTP responses by status class, every path together (data plane, `/token`, admin API, web
 * admin). The class alone, not the path: paths carry route names and ids, and a 401 spike or a
 * run of 503s shows in the class already.
 */
export class ResponseCounters {
  readonly byClass = new Counter<'class'>(['class']);

  constructor() {
    for (const name of CLASSES) this.byClass.zero({ class: name });
  }

  count(status: number): void {
    this.byClass.inc({ class: statusClass(status) });
  }
}
