import { confirmAction } from './confirm.svelte';
import { FormErrors, describeError } from './errors';
import type { FieldScope } from './field-labels';

export interface Banner {
  kind: 'success' | 'error';
  text: string;
}

/** What one list-and-dialog settings screen (Users, External User, Roles, Access Token) does its own way. */
export interface ResourceOptions<T extends { id: number }, D> {
  /** "user", "external user", "role": used in the screen's messages. */
  noun: string;
  /** Whose labels the API's errors are worded with (FIELD_LABELS). */
  scope: FieldScope;
  /** The list; a screen loads the lists its form offers (roles, routes) alongside, in here. */
  load: () => Promise<T[]>;
  /** The item's name in messages ("Deleted user “x”"). */
  nameOf: (item: T) => string;
  /** A fresh draft for New, and the draft of an item for Edit. */
  blank: () => D;
  fromItem?: (item: T) => D;
  /** Sends the draft; `editing` is null while creating. */
  save?: (draft: D, editing: T | null) => Promise<T>;
  remove: (item: T) => Promise<void>;
  /** What deleting does, for the confirmation. */
  deleteMessage: string;
  /** A reason the item cannot be deleted, known before asking the gateway (or null). */
  cannotDelete?: (item: T) => string | null;
  /** A refused delete in the screen's words (a role still in use); default: the service's message. */
  describeDeleteError?: (item: T, error: unknown) => string;
}

/**
 * The state and actions every list-and-dialog settings screen shares: the list and its load
 * error, one banner (a success never sits beside an older error), the New/Edit dialog with its
 * draft, field errors and busy flag, and delete after confirmation.
 */
export class ResourceScreen<T extends { id: number }, D> {
  list = $state<T[] | null>(null);
  loadError = $state<string | null>(null);
  banner = $state<Banner | null>(null);
  dialogOpen = $state(false);
  /** The item being edited; null while creating. */
  editing = $state<T | null>(null);
  draft = $state(undefined as D);
  errors = $state(new FormErrors());
  busy = $state(false);

  private readonly options: ResourceOptions<T, D>;

  constructor(options: ResourceOptions<T, D>) {
    this.options = options;
    this.draft = options.blank();
  }

  /** "user", "external user": as the screen's messages say it. */
  get noun(): string {
    return this.options.noun;
  }

  /** Whose labels the screen's fields show and its errors are worded with. */
  get scope(): FieldScope {
    return this.options.scope;
  }

  /** The item's name in messages and button labels. */
  nameOf = (item: T): string => this.options.nameOf(item);

  /** Whether the screen edits its items (Access Token only creates and regenerates). */
  get editable(): boolean {
    return this.options.fromItem !== undefined;
  }

  get editingId(): number | null {
    return this.editing?.id ?? null;
  }

  /** Whether the list loaded; a failed load clears the banner so its error stands alone. */
  load = async (): Promise<boolean> => {
    try {
      this.list = await this.options.load();
      this.loadError = null;
      return true;
    } catch (e) {
      this.loadError = describeError(e);
      this.banner = null;
      return false;
    }
  };

  openCreate = (): void => {
    this.editing = null;
    this.draft = this.options.blank();
    this.errors = new FormErrors();
    this.dialogOpen = true;
  };

  openEdit = (item: T): void => {
    this.editing = item;
    this.draft = this.options.fromItem ? this.options.fromItem(item) : this.options.blank();
    this.errors = new FormErrors();
    this.dialogOpen = true;
  };

  close = (): void => {
    this.dialogOpen = false;
  };

  succeed = (text: string): void => {
    this.banner = { kind: 'success', text };
  };

  fail = (text: string): void => {
    this.banner = { kind: 'error', text };
  };

  submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const save = this.options.save;
    if (!save) return;
    const creating = this.editing === null;
    this.busy = true;
    this.errors = new FormErrors();
    this.banner = null;
    try {
      const saved = await save(this.draft, this.editing);
      this.dialogOpen = false;
      if (await this.load())
        this.succeed(`${creating ? 'Created' : 'Saved'} ${this.options.noun} “${this.options.nameOf(saved)}”.`);
    } catch (e) {
      this.errors = FormErrors.from(e, this.options.scope);
    } finally {
      this.busy = false;
    }
  };

  remove = async (item: T): Promise<void> => {
    const name = this.options.nameOf(item);
    const refusal = this.options.cannotDelete?.(item) ?? null;
    if (refusal) return this.fail(refusal);
    const confirmed = await confirmAction({
      title: `Delete ${this.options.noun} “${name}”?`,
      message: this.options.deleteMessage,
      confirmLabel: 'Delete',
      danger: true,
    });
    if (!confirmed) return;
    this.banner = null;
    try {
      await this.options.remove(item);
      if (await this.load()) this.succeed(`Deleted ${this.options.noun} “${name}”.`);
    } catch (e) {
      this.fail(this.options.describeDeleteError?.(item, e) ?? describeError(e, this.options.scope));
    }
  };
}

/**
 * A draft as the service takes it: text trimmed, and an empty password left out (on edit the
 * service then keeps the current one; on create it answers "password is required").
 */
export function inputOf<D extends object>(draft: D): D {
  const entries = Object.entries(draft).flatMap(([key, value]: [string, unknown]) => {
    if (key === 'password') return value ? [[key, value]] : [];
    return [[key, typeof value === 'string' ? value.trim() : value]];
  });
  return Object.fromEntries(entries) as D;
}
