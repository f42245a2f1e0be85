import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt off the main thread (SPEC §13): a few worker threads run bcryptjs synchronously, so an
 * auth storm queues up in the pool instead of stalling every other request behind a full bcrypt
 * run each (figures: docs/performance.md, P06). The worker is an inline
 * CommonJS script that loads bcryptjs by absolute path: no separate worker file means nothing to
 * resolve differently under tsx, vitest and the electron-vite bundle (out/main/chunks), where
 * bcryptjs stays an external module.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptPath);
parentPort.on('message', (task) => {
  try {
    const result = task.op === 'hash' ? bcrypt.hashSync(task.password, task.cost) : bcrypt.compareSync(task.password, task.hash);
    parentPort.postMessage({ id: task.id, result });
  } catch (error) {
    parentPort.postMessage({ id: task.id, error: String((error && error.message) || error) });
  }
});
`;

type Task = { op: 'hash'; password: string; cost: number } | { op: 'compare'; password: string; hash: string };

/**
 * Tasks the pool's worker threads have answered, by kind: a seam for tests that must prove the
 * bcrypt work of a burst ran off the main thread, without timing anything.
 */
export const bcryptThreadWork: Record<Task['op'], number> = { hash: 0, compare: 0 };

interface Pending {
  task: Task & { id: number };
  resolve: (value: string | boolean) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
}

/** One thread fewer than the cores (the main thread needs one), at least one, at most four. */
const POOL_SIZE = Math.max(1, Math.min(4, availableParallelism() - 1));

class BcryptPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private bcryptPath: string | null = null;

  run(task: Task): Promise<string | boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { ...task, id: this.nextId++ }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((candidate) => candidate.busy === null) ?? this.spawn();
      if (!slot) return;
      const pending = this.queue.shift() as Pending;
      slot.busy = pending;
      // A task in flight keeps the process alive until it is answered; an idle worker does not.
      slot.worker.ref();
      slot.worker.postMessage(pending.task);
    }
  }

  private spawn(): Slot | null {
    if (this.slots.length >= POOL_SIZE) return null;
    // In the packaged desktop app bcryptjs is unpacked beside the asar archive (electron-builder
    // `asarUnpack`): the worker loads that real file, whatever its asar support.
    this.bcryptPath ??= createRequire(import.meta.url)
      .resolve('bcryptjs')
      .replace(/\.asar([\\/])/, '.asar.unpacked$1');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptPath: this.bcryptPath } });
    const slot: Slot = { worker, busy: null };
    worker.on('message', (message: { id: number; result?: string | boolean; error?: string }) => {
      const pending = slot.busy;
      slot.busy = null;
      slot.worker.unref();
      if (pending && pending.task.id === message.id) {
        bcryptThreadWork[pending.task.op]++;
        if (message.error !== undefined) pending.reject(new Error(message.error));
        else pending.resolve(message.result as string | boolean);
      }
      this.dispatch();
    });
    const retire = (error: Error): void => {
      const index = this.slots.indexOf(slot);
      if (index !== -1) this.slots.splice(index, 1);
      slot.busy?.reject(error);
      slot.busy = null;
      this.dispatch();
    };
    worker.on('error', retire);
    worker.on('exit', (code) => retire(new Error(`bcrypt worker exited with code ${code}`)));
    // Idle workers must not keep a finished process (a CLI command, a test) alive: unref'd while
    // idle (after the listeners, since adding a 'message' listener refs the worker again).
    worker.unref();
    this.slots.push(slot);
    return slot;
  }
}

const pool = new BcryptPool();

export async function bcryptHash(password: string, cost: number): Promise<string> {
  return (await pool.run({ op: 'hash', password, cost })) as string;
}

export async function bcryptCompare(password: string, hash: string): Promise<boolean> {
  return (await pool.run({ op: 'compare', password, hash })) as boolean;
}
