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

/**
 * `mqtt://host:port/<topic>` for one broker URL from /status: the broker's address with the route's
 * topic after it, the form `mosquitto_pub -L` takes (a leading `/` of the topic is kept: it is a
 * level of its own).
 */
export function mqttTopicUrl(brokerUrl: string, topic: string): string {
  return `${brokerUrl.replace(/\/+$/, '')}/${topic}`;
}
