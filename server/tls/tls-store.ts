import type { TlsCertificateInfo } from '../contract/dto';
import {
  checkInstallable,
  describe,
  generateSelfSigned,
  loadMaterial,
  needsRenewal,
  saveMaterial,
  type TlsMaterial,
} from './certificate';

/**
 * The certificate the HTTPS listener presents, kept in the data folder. Listeners subscribe, so
 * an installed, regenerated or renewed certificate is served at the next handshake, no restart.
 */
export interface TlsStore {
  /** Loads the stored pair, or makes one; renews a generated one due for renewal. */
  ensure(): Promise<TlsMaterial>;
  current(): TlsMaterial | null;
  info(): Promise<TlsCertificateInfo>;
  install(input: { certificatePem?: unknown; privateKeyPem?: unknown }): Promise<TlsCertificateInfo>;
  regenerate(): Promise<TlsCertificateInfo>;
  onChange(listener: (material: TlsMaterial) => void): () => void;
  /** Checks for renewal once a day; stopped by `close`. */
  startRenewal(): void;
  close(): void;
}

export function createTlsStore(dataDir: string, now: () => number = Date.now): TlsStore {
  let material: TlsMaterial | null = null;
  const listeners = new Set<(material: TlsMaterial) => void>();
  let timer: NodeJS.Timeout | null = null;

  const replace = (next: TlsMaterial) => {
    saveMaterial(dataDir, next);
    material = next;
    for (const listener of listeners) listener(next);
    return next;
  };

  const store: TlsStore = {
    async ensure() {
      material ??= loadMaterial(dataDir);
      // Only a generated certificate is renewed: an operator's own one is theirs to replace.
      if (!material || (material.source === 'generated' && needsRenewal(material, new Date(now())))) {
        return replace(await generateSelfSigned(new Date(now())));
      }
      return material;
    },
    current: () => material,
    info: async () => describe(await store.ensure()),
    async install(input) {
      // Awaited so a refusal is a rejected promise, like every other operation's.
      const material = await Promise.resolve().then(() => checkInstallable(input, new Date(now())));
      return describe(replace(material));
    },
    async regenerate() {
      return describe(replace(await generateSelfSigned(new Date(now()))));
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    startRenewal() {
      timer ??= setInterval(() => void store.ensure().catch(() => undefined), 86_400_000);
      timer.unref();
    },
    close() {
      if (timer) clearInterval(timer);
      timer = null;
      listeners.clear();
    },
  };
  return store;
}
