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

/** `http(s)://host:port/GWENDPOINTAPI/<base>/<route>` for one listen URL (which ends in /GWENDPOINTAPI). */
export function routeUrl(listenUrl: string, baseRoutePath: string, routeName: string): string {
  return `${listenUrl.replace(/\/+$/, '')}/${baseRoutePath}/${routeName}`;
}

/** The ports the gateway listens on, read from its URLs. */
export function listeningPorts(urls: string[]): number[] {
  return [
    ...new Set(
      urls.flatMap((url) => {
        try {
          const parsed = new URL(url);
          return [Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80))];
        } catch {
          return [];
        }
      }),
    ),
  ];
}
