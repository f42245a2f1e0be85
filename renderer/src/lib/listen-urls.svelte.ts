import { api } from './api';

/**
 * Where the gateway really listens, from `/status`: `urls` are its HTTP(S) addresses (each ending
 * in /GWENDPOINTAPI, what screens build data-plane URLs from), `mqttUrls` the MQTT broker's
 * (`mqtt://host:port`, `mqtts://…`, listed only while it runs), `mqttMode` the `mqttMode` setting
 * (null until read). The broker starts and stops with a setting, so every screen that shows these
 * reads them again when it mounts; calls while a read is under way share it.
 */
export const listening = $state<{ urls: string[]; mqttUrls: string[]; mqttMode: 'off' | 'on' | null }>({
  urls: [],
  mqttUrls: [],
  mqttMode: null,
});
let loading: Promise<void> | null = null;

const isMqtt = (url: string): boolean => url.startsWith('mqtt://') || url.startsWith('mqtts://');

export function loadListenUrls(): Promise<void> {
  loading ??= api
    .getStatus()
    .then((status) => {
      listening.urls = status.listenUrls.filter((url) => !isMqtt(url));
      listening.mqttUrls = status.listenUrls.filter(isMqtt);
      listening.mqttMode = status.mqtt.mode;
    })
    .catch(() => {
      // Not fatal: the screens fall back to the path alone, and keep what an earlier read found.
    })
    .finally(() => {
      loading = null;
    });
  return loading;
}
