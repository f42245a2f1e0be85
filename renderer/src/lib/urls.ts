/** Full data-plane URLs built from what /status reports (plain functions, no reactive state). */

/** `http(s)://host:port/GWENDPOINTAPI/<base>/<route>` for one listen URL (which ends in /GWENDPOINTAPI). */
export function routeUrl(listenUrl: string, baseRoutePath: string, routeName: string): string {
  return `${listenUrl.replace(/\/+$/, '')}/${baseRoutePath}/${routeName}`;
}

/**
 * The port the gateway listens on for `scheme`, read from its URLs; null when none is listed (no
 * HTTPS with tlsMode `off`; with `on` the HTTP port only redirects and is not listed).
 */
export function listeningPort(urls: string[], scheme: 'http' | 'https'): number | null {
  for (const url of urls) {
    try {
      const parsed = new URL(url);
      if (parsed.protocol === `${scheme}:`) return Number(parsed.port || (scheme === 'https' ? 443 : 80));
    } catch {
      // Not a URL: look at the next one.
    }
  }
  return null;
}

/**
 * `mqtt://host:port/<topic>` for one broker URL from /status: the broker's address with the route's
 * topic after it, the form `mosquitto_pub -L` takes (a leading `/` of the topic is kept: it is a
 * level of its own).
 */
export function mqttTopicUrl(brokerUrl: string, topic: string): string {
  return `${brokerUrl.replace(/\/+$/, '')}/${topic}`;
}
