import type { FieldError } from '../../../server/contract/errors';
import { ApiError } from './api';
import { messageInWords, type FieldScope } from './field-labels';

/**
 * A failed save, split for display: field errors are looked up by JSON Pointer so each form puts
 * them under the right input; whatever no field claims goes to the form's summary.
 */
export class FormErrors {
  constructor(
    /** The service's message (or ours), shown above the form. */
    readonly message: string | null = null,
    readonly fields: FieldError[] = [],
  ) {}

  /**
   * From anything a call can throw, worded with the labels of the form that sent it (`scope`);
   * unknown errors keep a generic, actionable message.
   */
  static from(error: unknown, scope: FieldScope): FormErrors {
    if (!(error instanceof ApiError)) return new FormErrors(describeError(error));
    const fields = error.errors.map((e) => ({ path: e.path, message: messageInWords(scope, e) }));
    return new FormErrors(describeError(error, scope), fields);
  }

  get any(): boolean {
    return this.message !== null || this.fields.length > 0;
  }

  /** Messages for `path` itself or anything below it (`/routes/1/roles/0` belongs to `/routes/1/roles`). */
  at(path: string): string | undefined {
    const messages = this.fields.filter((e) => e.path === path || e.path.startsWith(`${path}/`)).map((e) => e.message);
    return messages.length > 0 ? [...new Set(messages)].join(' ') : undefined;
  }

  /** Messages for exactly `path` (a list-level error such as "at least one route"). */
  exact(path: string): string | undefined {
    const messages = this.fields.filter((e) => e.path === path).map((e) => e.message);
    return messages.length > 0 ? messages.join(' ') : undefined;
  }

  /** Errors whose path is not under any of the paths a form shows. */
  unclaimed(paths: readonly string[]): FieldError[] {
    return this.fields.filter((e) => !paths.some((p) => e.path === p || e.path.startsWith(`${p}/`)));
  }
}

/**
 * One sentence for an error that is shown as a whole (not per field). With the form's `scope`, a
 * message that is its only field error's (the API says a single problem that way) is worded with
 * the form's labels too.
 */
export function describeError(error: unknown, scope?: FieldScope): string {
  if (error instanceof ApiError) {
    const [only, ...others] = error.errors;
    const alone = scope !== undefined && only !== undefined && others.length === 0 && only.message === error.message;
    return alone ? messageInWords(scope, only) : error.message;
  }
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong. Try again; if it keeps happening, check the gateway log.';
}
