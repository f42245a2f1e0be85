/** Which part of the configuration changed; listeners rebuild only what depends on it. */
export type ConfigResource =
  'endpoints' | 'roles' | 'users' | 'externalUsers' | 'accessTokens' | 'settings' | 'sessions' | 'destinations';

export const ALL_RESOURCES: readonly ConfigResource[] = [
  'endpoints',
  'roles',
  'users',
  'externalUsers',
  'accessTokens',
  'settings',
  'sessions',
  'destinations',
];

/** `remote`: the change was made by another instance on the same database. */
export type ChangeListener = (resources: ReadonlySet<ConfigResource>, origin: { remote: boolean }) => void;

/**
 * The in-process bus that tells caches (route table, credential caches, settings) that the
 * configuration changed. Services publish after their transaction commits; with PostgreSQL the
 * change feed forwards local changes to other instances and delivers theirs with `receive`.
 */
export class ConfigChanges {
  private readonly listeners = new Set<ChangeListener>();

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A change made here. */
  publish(...resources: ConfigResource[]): void {
    this.emit(resources, false);
  }

  /** A change made by another instance (not forwarded again). */
  receive(resources: readonly ConfigResource[]): void {
    this.emit(resources, true);
  }

  private emit(resources: readonly ConfigResource[], remote: boolean): void {
    const set = new Set(resources);
    for (const listener of this.listeners) listener(set, { remote });
  }
}
