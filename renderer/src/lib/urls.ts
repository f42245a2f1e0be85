/** Full data-plane URLs built from what /status reports (plain functions, no reactive state). */

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
