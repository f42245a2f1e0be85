/**
 * One confirmation at a time, asked from anywhere (`await confirmAction(...)`) and shown by the
 * ConfirmDialog mounted once in App, outside the page: while it is open the page is hidden from
 * assistive technology, so "Delete" in the dialog is the only Delete a screen reader (or a test
 * looking up buttons by role) finds.
 */
export interface ConfirmRequest {
  title: string;
  message: string;
  /** The verb on the button that goes ahead ("Delete", "Regenerate", "Apply"). */
  confirmLabel: string;
  danger?: boolean;
}

interface Pending extends ConfirmRequest {
  resolve: (confirmed: boolean) => void;
}

export const confirmState: { pending: Pending | null } = $state({ pending: null });

export function confirmAction(request: ConfirmRequest): Promise<boolean> {
  // A second request while one is open answers the first one "no".
  confirmState.pending?.resolve(false);
  return new Promise((resolve) => {
    confirmState.pending = { ...request, resolve };
  });
}

export function answerConfirm(confirmed: boolean): void {
  const pending = confirmState.pending;
  confirmState.pending = null;
  pending?.resolve(confirmed);
}
