/**
 * The engine a cell measures, resolved the way a host resolves it (the bench engine's registry and
 * config, its factory called once) but called directly: no host, no guard, no model.
 */
import { type ContextEngine, type Summarizer, selectContextEngine, type TokenCounter } from "@clew/core";
import { benchEngine } from "../../engines.js";

export interface EngineUnderTestOptions {
  engine: string;
  counter: TokenCounter;
  summarizer: Summarizer;
  /** The engine's state folder (and agent folder): everything it keeps on disk goes here. */
  stateDir: string;
  workspaceDir: string;
}

/**
 * Builds the bench engine `options.engine` with the cell's counter, summarizer and state folder.
 * Throws `InvalidOptionError` for an unknown engine, and an Error when the engine's config selects
 * another engine or its id has no registration (the cell would measure the wrong engine).
 */
export async function createEngineUnderTest(options: EngineUnderTestOptions): Promise<ContextEngine> {
  const setup = benchEngine(options.engine).setup({
    counter: options.counter,
    stateDir: options.stateDir,
    summarizer: options.summarizer,
  });
  const { selectedId } = selectContextEngine(setup.config, setup.registry);
  const registration = setup.registry.get(selectedId);
  if (registration === undefined) {
    throw new Error(`bench engine "${options.engine}" selects "${selectedId}", which is not registered`);
  }
  if (selectedId !== options.engine) {
    throw new Error(`bench engine "${options.engine}" selects "${selectedId}" instead of itself`);
  }
  return registration.factory({
    config: setup.config,
    agentDir: options.stateDir,
    workspaceDir: options.workspaceDir,
  });
}
