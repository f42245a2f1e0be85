import { onMount } from 'svelte';

/**
 * Forms with unsaved changes register here; App asks before a navigation would drop them (and the
 * browser asks before the page is closed). Each guard says what would be lost, or null.
 */
const guards = new Set<() => string | null>();

/** Call from a component's setup: the guard lives as long as the component. */
export function guardUnsaved(describe: () => string | null): void {
  onMount(() => {
    guards.add(describe);
    return () => guards.delete(describe);
  });
}

/** What would be lost by leaving now, or null when nothing would. */
export function unsavedChanges(): string | null {
  for (const describe of guards) {
    const lost = describe();
    if (lost) return lost;
  }
  return null;
}
