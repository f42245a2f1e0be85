import { confirmAction, type ConfirmRequest } from './confirm.svelte';
import { describeError } from './errors';
import type { ResourceScreen } from './resource-screen.svelte';

/** A value the gateway answers only once, and what made it (`create`, `regenerate`, `save`). */
export interface Shown<By extends string> {
  name: string;
  value: string;
  by: By;
}

/**
 * A value the gateway answers only once (an access token, an HMAC secret), shown in its screen's
 * dialog in place of the form. It is held only while the dialog shows it, and until it is copied
 * (or "I have saved it" is pressed) Esc cannot close the dialog and lose it.
 */
export class ShownOnce<T extends { id: number }, D, By extends string> {
  shown = $state<Shown<By> | null>(null);
  copied = $state(false);

  private readonly screen: ResourceScreen<T, D>;

  constructor(screen: ResourceScreen<T, D>) {
    this.screen = screen;
  }

  /** Whether Esc may close the dialog: nothing is shown, or it was copied. */
  get dismissible(): boolean {
    return this.shown === null || this.copied;
  }

  /** Shows the value in the dialog; false (and nothing shown) when there is none. */
  show = (shown: Shown<By> | null): boolean => {
    if (!shown) return false;
    this.shown = shown;
    this.copied = false;
    this.screen.dialogOpen = true;
    return true;
  };

  openCreate = (): void => {
    this.shown = null;
    this.screen.openCreate();
  };

  /** Closes the dialog; the value must not linger in memory (or the DOM) once it is done with. */
  close = (): void => {
    this.screen.close();
    this.shown = null;
    this.copied = false;
  };

  /** After confirmation, makes a new value for an item, shows it and reloads the list. */
  regenerate = async (
    confirm: Omit<ConfirmRequest, 'confirmLabel'>,
    run: () => Promise<Shown<By> | null>,
  ): Promise<void> => {
    if (!(await confirmAction({ ...confirm, confirmLabel: 'Regenerate' }))) return;
    this.screen.banner = null;
    try {
      this.show(await run());
      await this.screen.load();
    } catch (e) {
      this.screen.fail(describeError(e, this.screen.scope));
    }
  };
}
