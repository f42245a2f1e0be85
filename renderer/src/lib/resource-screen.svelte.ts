import { tick } from 'svelte';
import { confirmAction } from './confirm.svelte';
import { FormErrors, describeError } from './errors';
import type { FieldScope } from './field-labels';
import { RESOURCE_KINDS, type ResourceKind } from './resource-kinds';
import { clearToasts, toast } from './toast.svelte';

export interface Banner {
  kind: 'success' | 'error';
  text: string;
}

/** What one list-and-form settings screen (Users, External User, Roles, Access Token, Endpoints, Destinations) does its own way. */
export interface ResourceOptions<T extends { id: number }, D> {
  /** Which resource: its words (RESOURCE_KINDS) and its form's labels (FIELD_LABELS). */
  kind: ResourceKind;
  /** The list. */
  load: () => Promise<T[]>;
  /** What the form offers (role names, routes), loaded beside the list each time. */
  alongside?: () => Promise<unknown>;
  /** The item's name in messages ("Deleted user “x”"). */
  nameOf: (item: T) => string;
  /** A fresh draft for New, and the draft of an item for Edit. */
  blank: () => D;
  fromItem?: (item: T) => D;
  /** Sends the draft; `editing` is null while creating. */
  save?: (draft: D, editing: T | null) => Promise<T>;
  /**
   * Sees what a save answered before the dialog closes; true keeps the dialog open (to show a
   * secret the gateway answers only this once).
   */
  keepOpen?: (saved: T, creating: boolean) => boolean;
  /** Deletes from the list (after confirmation); none when the screen deletes elsewhere (Endpoints' editor). */
  remove?: {
    run: (item: T) => Promise<void>;
    /** What deleting does, for the confirmation. */
    message: string;
  };
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
    return RESOURCE_KINDS[this.options.kind].noun;
  }

  /** The words of the button that makes a new one. */
  get newLabel(): string {
    return RESOURCE_KINDS[this.options.kind].newLabel;
  }

  /** Whose labels the screen's fields show and its errors are worded with. */
  get scope(): FieldScope {
    return this.options.kind;
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

  /** Whether the list offers Delete. */
  get removable(): boolean {
    return this.options.remove !== undefined;
  }

  /** Whether the list loaded; a failed load clears the banner so its error stands alone. */
  load = async (): Promise<boolean> => {
    try {
      const [list] = await Promise.all([this.options.load(), this.options.alongside?.()]);
      this.list = list;
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

  /** A confirmation goes to the toast, in view wherever the page is scrolled; it ends an older error. */
  succeed = (text: string): void => {
    this.banner = null;
    toast(text);
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
    clearToasts();
    try {
      const saved = await save(this.draft, this.editing);
      if (!this.options.keepOpen?.(saved, creating)) this.dialogOpen = false;
      if (await this.load())
        this.succeed(`${creating ? 'Created' : 'Saved'} ${this.noun} “${this.options.nameOf(saved)}”.`);
    } catch (e) {
      this.errors = FormErrors.from(e, this.scope);
      await focusFirstInvalid();
    } finally {
      this.busy = false;
    }
  };

  remove = async (item: T): Promise<void> => {
    const remove = this.options.remove;
    if (!remove) return;
    const name = this.options.nameOf(item);
    const refusal = this.options.cannotDelete?.(item) ?? null;
    if (refusal) return this.fail(refusal);
    const confirmed = await confirmAction({
      title: `Delete ${this.noun} “${name}”?`,
      message: remove.message,
      confirmLabel: 'Delete',
      danger: true,
    });
    if (!confirmed) return;
    this.banner = null;
    clearToasts();
    try {
      await remove.run(item);
      if (await this.load()) this.succeed(`Deleted ${this.noun} “${name}”.`);
    } catch (e) {
      this.fail(this.options.describeDeleteError?.(item, e) ?? describeError(e, this.scope));
    }
  };
}

/** After a refused save, puts the keyboard on the first field marked wrong, once it is drawn. */
export async function focusFirstInvalid(): Promise<void> {
  await tick();
  document.querySelector<HTMLElement>('dialog[open] [aria-invalid="true"]')?.focus();
}

/**
 * `save` for a screen whose service creates from the draft and updates by id with the same input
 * (Users, External User, Roles): New creates, Edit updates the item being edited.
 */
export function createOrUpdate<T extends { id: number }, D extends object>(
  create: (input: D) => Promise<T>,
  update: (input: D & { id: number }) => Promise<T>,
): (draft: D, editing: T | null) => Promise<T> {
  return (draft, editing) => (editing ? update({ id: editing.id, ...inputOf(draft) }) : create(inputOf(draft)));
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
