import { api } from './api';

/**
 * Where the gateway really listens (`/status` listenUrls: every address, HTTP and HTTPS as the
 * server reports them), read once per page load for the screens that build full URLs from it.
 */
export const listening = $state<{ urls: string[] }>({ urls: [] });
let loading: Promise<void> | null = null;

export function loadListenUrls(): Promise<void> {
  loading ??= api
    .getStatus()
    .then((status) => {
      listening.urls = status.listenUrls;
    })
    .catch(() => {
      // Not fatal: the screens fall back to the path alone; a later call tries again.
      loading = null;
    });
  return loading;
}
