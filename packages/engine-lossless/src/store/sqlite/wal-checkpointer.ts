/**
 * Checkpoints off the event loop. A checkpoint copies the WAL's pages into the database file and
 * syncs it; on the store's own connection that held the event loop for as long as it took (a
 * 64 MB log after a bulk import: about 0.3 s, every session of a gateway waiting). Here a worker
 * thread with a connection of its own runs it as SQLite's PASSIVE checkpoint, which neither waits
 * for this process's readers and writers nor blocks them. What is left on the event loop is the
 * truncation that follows (`wal.ts`), which then finds nothing to copy.
 *
 * Never throws: a checkpoint that fails or finds the database busy answers `false`, and the caller
 * leaves the log to the next attempt (SQLite's own checkpoints keep it bounded meanwhile). A worker
 * that cannot start, or dies, is replaced at the next call; `close` ends it.
 */
import { createRequire } from "node:module";
import { Worker, type WorkerOptions } from "node:worker_threads";

/** The worker's code: CommonJS, evaluated, so it needs no file of its own next to this one. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
let database;
parentPort.on("message", () => {
  try {
    if (database === undefined) {
      database = new Database(workerData.path, { fileMustExist: true });
      database.pragma("busy_timeout = 0");
    }
    const [result] = database.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ done: result.busy === 0 && result.checkpointed === result.log });
  } catch {
    parentPort.postMessage({ done: false });
  }
});
`;

export interface WalCheckpointerOptions {
  /** Starts the worker (tests watch or stop it); `new Worker` by default. */
  startWorker?: (source: string, options: WorkerOptions) => Worker;
}

export class WalCheckpointer {
  private worker: Worker | undefined;
  /** The checkpoint running, and callers waiting for the one after it. */
  private running: Promise<boolean> | undefined;
  private next: Promise<boolean> | undefined;
  /** Answers the running checkpoint's caller: from the worker, or false when the worker is gone. */
  private answer: ((done: boolean) => void) | undefined;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly options: WalCheckpointerOptions = {},
  ) {}

  /**
   * Runs a checkpoint in the worker; true when every frame of the log was copied. A call made
   * while one runs waits for the next one (the log may have grown since the running one began).
   */
  checkpoint(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.running === undefined) {
      this.running = this.run().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.next ??= this.running.then(() => {
      this.next = undefined;
      return this.checkpoint();
    });
    return this.next;
  }

  /** Ends the worker (a checkpoint in flight answers false); later checkpoints answer false. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    this.answer?.(false);
  }

  private run(): Promise<boolean> {
    return new Promise((resolve) => {
      let worker: Worker;
      try {
        worker = this.worker ?? this.startWorker();
      } catch {
        resolve(false);
        return;
      }
      // Listened to only while a checkpoint runs: a listener keeps the process alive.
      const onMessage = (message: { done: boolean }) => this.answer?.(message.done);
      this.answer = (done) => {
        this.answer = undefined;
        worker.off("message", onMessage);
        resolve(done);
      };
      worker.on("message", onMessage);
      worker.postMessage("checkpoint");
    });
  }

  private startWorker(): Worker {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const options: WorkerOptions = { eval: true, workerData: { path: this.path, driver } };
    const worker = this.options.startWorker?.(WORKER_SOURCE, options) ?? new Worker(WORKER_SOURCE, options);
    // A pending checkpoint must not keep a process alive; the log is safe in the file.
    worker.unref();
    // A worker that dies (out of memory, terminated) is forgotten, whenever it happens: the next
    // checkpoint starts another, and one in flight answers false instead of waiting for good.
    const gone = () => {
      // A worker already replaced (or ended by `close`, which answers itself) answers nobody.
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.answer?.(false);
    };
    worker.on("error", gone);
    worker.on("exit", gone);
    this.worker = worker;
    return worker;
  }
}
