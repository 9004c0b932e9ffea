import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@clew/core";
import { openLosslessEngine } from "../../src/create-lossless-engine.js";
import type { LosslessEngine } from "../../src/lossless-engine.js";
import type { LosslessEngineOptions } from "../../src/options.js";

/** Temporary folders for engines' databases, removed by `cleanup`. */
export class TempEngines {
  private readonly directories: string[] = [];
  private readonly engines: LosslessEngine[] = [];

  async directory(): Promise<string> {
    const directory = await mkdtemp(join(tmpdir(), "clew-lossless-"));
    this.directories.push(directory);
    return directory;
  }

  /** A fresh engine over `<new temp dir>/lossless.db`, or over `path` when given. */
  async engine(options: LosslessEngineOptions = {}, path?: string): Promise<LosslessEngine> {
    const databasePath = path ?? join(await this.directory(), "lossless.db");
    const engine = openLosslessEngine(databasePath, options);
    this.engines.push(engine);
    return engine;
  }

  /** A fresh engine that stored `messages` as one finished turn of session "s". */
  async engineWithTurn(
    messages: AgentMessage[],
    options: LosslessEngineOptions = {},
  ): Promise<LosslessEngine> {
    const engine = await this.engine(options);
    await engine.afterTurn({ sessionId: "s", sessionFile: "memory:s", messages, prePromptMessageCount: 0 });
    return engine;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.engines.splice(0).map((engine) => engine.dispose()));
    await Promise.all(
      this.directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
    );
  }
}
