/** Which part of the configuration changed; listeners rebuild only what depends on it. */
export type ConfigResource =
  'endpoints' | 'roles' | 'users' | 'externalUsers' | 'accessTokens' | 'settings' | 'sessions';

export type ChangeListener = (resources: ReadonlySet<ConfigResource>) => void;

/**
 * The in-process bus that tells caches (route table, credential caches, settings) that the
 * configuration changed. Services publish after their transaction commits; with PostgreSQL the
 * same notifications also arrive from other instances.
 */
export class ConfigChanges {
  private readonly listeners = new Set<ChangeListener>();

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(...resources: ConfigResource[]): void {
    const set = new Set(resources);
    for (const listener of this.listeners) listener(set);
  }
}
