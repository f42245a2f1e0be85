import type { Client, PublishPacket } from 'aedes';
import { plainAddress } from '../address-ranges';
import type { Credential, Principal } from '../auth/credentials';
import { AppError } from '../errors';
import { sha256Hex } from '../secrets';
import { authenticateClient, mayStillSubmit, type AuthDeps } from '../intake/authorize';
import type { Intake } from '../intake/intake';
import type { IntakeOutcome } from '../intake/outcome';
import type { LiveRoute, LiveRoutes } from '../intake/route-table';
import type { Logger } from '../logger';

/** `gateway_mqtt_messages_total{result}` (SPEC §15). */
export const MQTT_RESULTS = ['stored', 'rejected', 'unrouted', 'forbidden', 'unavailable'] as const;
export type MqttResult = (typeof MQTT_RESULTS)[number];

/** A connected client as the gateway knows it: who it is and how many messages it has sent. */
interface Session {
  principal: Principal;
  credential: Credential;
  ip: string;
  messages: number;
}

/** A DUP re-send of a message committed this long ago or less is acknowledged without storing it again. */
const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
/**
 * A message that meets a full queue waits for room this long, PUBACK held, before its connection
 * is closed: a publisher's in-flight window then slows it to the worker's pace (back-pressure),
 * where closing at once would make every publisher reconnect and resend. The same bound as a
 * request waiting for the writer (SPEC §13).
 */
const OVERLOAD_WAIT_MS = 2_000;

/** Remembered committed messages, across clients: past this the oldest are forgotten first. */
const MAX_REMEMBERED = 200_000;

/** Why a PUBLISH closes its connection instead of being acknowledged; `aedes` closes on any error. */
export class PublishRefused extends Error {
  constructor(readonly result: 'forbidden' | 'unavailable') {
    super(result === 'forbidden' ? 'not allowed to publish to this topic' : 'the message cannot be stored now');
    this.name = 'PublishRefused';
  }
}

/** Refused at CONNECT: MQTT 3.1.1 return codes 4 (bad username or password) and 5 (not authorized). */
export class ConnectRefused extends Error {
  constructor(readonly returnCode: 4 | 5) {
    super(returnCode === 4 ? 'bad user name or password' : 'not authorized');
    this.name = 'ConnectRefused';
  }
}

/** A password that is a gateway token: an access token or a bearer token, whatever the username. */
const isToken = (password: string): boolean => password.startsWith('gwat_') || password.startsWith('gwbt_');

/** CONNECT's username and password as the transport-neutral credential (SPEC §15). */
export function credentialOfConnect(username: string | undefined, password: Buffer | undefined): Credential {
  const secret = password?.toString('utf8');
  if (!username && !secret) return { kind: 'none' };
  if (secret && isToken(secret)) return { kind: 'token', value: secret, bearer: true };
  if (username && secret !== undefined) return { kind: 'basic', username, password: secret };
  return { kind: 'malformed' };
}

/**
 * What the broker does with CONNECT and PUBLISH (SPEC §15): a client authenticates once, with the
 * lockout shared with HTTP; each message is a submission to the route its topic matches, through
 * the intake core, and is acknowledged only once that submission is committed. The broker itself
 * keeps nothing that matters: the database is the store of record.
 */
export class MqttPublications {
  private readonly sessions = new WeakMap<Client, Session>();
  /** `clientId \0 packetId` → the payload's hash and when it was committed (for DUP re-sends). */
  private readonly committed = new Map<string, { hash: string; at: number }>();
  /** The same, for messages still being stored: a DUP re-send waits for the first one's fate. */
  private readonly storing = new Map<string, { hash: string; stored: Promise<void> }>();
  readonly counts: Record<MqttResult, number> = { stored: 0, rejected: 0, unrouted: 0, forbidden: 0, unavailable: 0 };

  constructor(
    private readonly deps: AuthDeps & {
      routes: LiveRoutes;
      intake: Intake;
      logger: Logger;
      now: () => number;
      /** A topic no route takes, shown on the reader that published it (SPEC §15, §16). */
      unroutedTopic?: (clientId: string, topic: string) => void;
    },
  ) {}

  /** CONNECT: the credential's principal, or a ConnectRefused (a wrong one counts toward the lockout). */
  async connect(client: Client, username: string | undefined, password: Buffer | undefined): Promise<void> {
    const ip = addressOf(client);
    const credential = credentialOfConnect(username, password);
    let principal: Principal;
    try {
      principal = await authenticateClient(credential, ip, this.deps);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      throw new ConnectRefused(error.code === 'too_many_failures' || error.code === 'forbidden' ? 5 : 4);
    }
    // A disabled external user's right password names someone who may not publish anything.
    if (principal.kind === 'external' && !principal.user.active) throw new ConnectRefused(5);
    this.sessions.set(client, { principal, credential, ip, messages: 0 });
  }

  /**
   * One PUBLISH (a Will included): resolves when it may be acknowledged, rejects with
   * PublishRefused when the connection must close instead (nothing stored).
   */
  async publish(client: Client | null, packet: PublishPacket): Promise<void> {
    // Nothing is kept as retained (SPEC §15): the broker is for ingestion only.
    packet.retain = false;
    const session = client ? this.sessions.get(client) : undefined;
    if (!client || !session) return; // the broker's own messages ($SYS): not ingested
    session.messages += 1;
    const live = await this.deps.routes.forTopic(packet.topic);
    if (!live) {
      this.deps.unroutedTopic?.(client.id, packet.topic);
      return this.count('unrouted');
    }
    if (!(await mayStillSubmit(live, session, this.deps.verifier))) {
      this.count('forbidden');
      throw new PublishRefused('forbidden');
    }
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    const key = packet.qos > 0 ? `${client.id}\u0000${String(packet.messageId)}` : null;
    const hash = key ? sha256Hex(payload) : '';
    if (key && packet.dup) {
      const running = this.storing.get(key);
      if (running?.hash === hash) return running.stored;
      if (this.isRepeat(key, hash)) return;
    }
    const stored = this.submit(client, session, live, packet.topic, payload);
    if (!key) return stored;
    this.storing.set(key, { hash, stored });
    try {
      await stored;
      this.remember(key, hash);
    } finally {
      if (this.storing.get(key)?.stored === stored) this.storing.delete(key);
    }
  }

  /** The message as a submission to its route; resolves once committed (or refused for what it is). */
  private async submit(
    client: Client,
    session: Session,
    live: LiveRoute,
    topic: string,
    payload: Buffer,
  ): Promise<void> {
    const outcome = await this.deps.intake.submit({
      route: live,
      principal: session.principal,
      raw: payload,
      source: {
        transport: 'mqtt' as const,
        ip: session.ip,
        requestId: `mqtt:${client.id}:${session.messages}`,
        topic,
        readerId: client.id,
      },
      // A full queue: wait for room, PUBACK held, before giving up on the connection.
      waitForRoomMs: OVERLOAD_WAIT_MS,
    });
    const result = resultOf(outcome);
    this.count(result);
    if (result === 'unavailable') throw new PublishRefused('unavailable');
  }

  /** The client left: its session goes with it (a reconnect authenticates again). */
  forget(client: Client): void {
    this.sessions.delete(client);
  }

  private count(result: MqttResult): void {
    this.counts[result] += 1;
  }

  private isRepeat(key: string, hash: string): boolean {
    const seen = this.committed.get(key);
    return seen !== undefined && seen.hash === hash && this.deps.now() - seen.at <= DUPLICATE_WINDOW_MS;
  }

  private remember(key: string, hash: string): void {
    const now = this.deps.now();
    this.committed.delete(key); // re-inserted last: the map stays in commit order
    this.committed.set(key, { hash, at: now });
    for (const [oldest, entry] of this.committed) {
      if (this.committed.size <= MAX_REMEMBERED && now - entry.at <= DUPLICATE_WINDOW_MS) break;
      this.committed.delete(oldest);
    }
  }
}

/** How a submission's outcome is counted; `unavailable` is the one that is not acknowledged. */
function resultOf(outcome: IntakeOutcome): MqttResult {
  switch (outcome.kind) {
    case 'processed':
    case 'queued':
    case 'replayed':
      return 'stored';
    case 'rejected':
    case 'invalid':
    case 'conflict':
      // Refused for what it is: acknowledged, so a client never resends it forever.
      return 'rejected';
    case 'overloaded':
    case 'unavailable':
      return 'unavailable';
  }
}

function addressOf(client: Client): string {
  const socket = client.conn as { remoteAddress?: string };
  return plainAddress(socket.remoteAddress ?? '');
}
