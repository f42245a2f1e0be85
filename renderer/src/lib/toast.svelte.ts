/**
 * Confirmations ("Created …", "Settings saved.") shown where the technician is looking: a toast at
 * the foot of the window, whatever the page's scroll position (issue 40.7: a banner at the top of
 * the page was off-screen after Submit at the bottom of a long form). Every screen that confirms
 * an action uses this one mechanism; errors stay beside what they are about.
 */
export const toasts = $state<{ id: number; text: string }[]>([]);

/** How long a confirmation stays: long enough to read twice, short enough not to cover the page. */
export const TOAST_MS = 8_000;
/** Older confirmations give way: three at most are on screen. */
const MAX_TOASTS = 3;

let nextId = 1;

export function toast(text: string): void {
  const id = nextId++;
  // The same confirmation again (Save twice) replaces the older one rather than stacking under it.
  const same = toasts.findIndex((entry) => entry.text === text);
  if (same >= 0) toasts.splice(same, 1);
  toasts.push({ id, text });
  if (toasts.length > MAX_TOASTS) toasts.splice(0, toasts.length - MAX_TOASTS);
  setTimeout(() => dismissToast(id), TOAST_MS);
}

export function dismissToast(id: number): void {
  const index = toasts.findIndex((entry) => entry.id === id);
  if (index >= 0) toasts.splice(index, 1);
}

/** A new action began (another Submit) or the screen changed: older confirmations are stale. */
export function clearToasts(): void {
  toasts.splice(0, toasts.length);
}
