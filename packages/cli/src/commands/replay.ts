import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  createBuiltinTools,
  formatContextList,
  formatEngineSection,
  generateDemoSession,
  type RecordedTurn,
  recordedTurns,
  replaySession,
  writeContextMap,
  writeDemoWorkspace,
} from "@clew/agent";
import {
  buildRunReport,
  type ClewConfig,
  createTokenCounter,
  describeRuntimeHost,
  importTranscript,
  MemoryLogger,
  normalizeContextEngineSlot,
  prepareSystemPrompt,
  resolvePromptSettings,
} from "@clew/core";
import type { Command } from "commander";
import { loadEngines } from "../agent-service.js";
import { openCliContext } from "../context.js";
import { type CliIo, CliUsageError } from "../io.js";
import { formatFill, progressBar } from "./replay-output.js";

interface ReplayOptions {
  demo?: boolean;
  engine?: string;
  window?: string;
  budget?: string;
  out?: string;
  format: string;
}

/** `clew replay FILE | --demo`: a recorded session through the selected engine, no model needed. */
export function registerReplayCommand(program: Command, io: CliIo): void {
  program
    .command("replay")
    .description(
      "replay a recorded session (Clew, pi, OpenClaw or Claude Code JSONL) through a context engine",
    )
    .argument("[file]", "the recorded session")
    .option("--demo", "replay a realistic coding session Clew generates (deterministic)")
    .option("--engine <id>", "context engine to replay through (default: the configured slot)")
    .option("--window <tokens>", "context window of the imagined model (default 200000; 64000 with --demo)")
    .option("--budget <tokens>", "cap the window used for budgets (agents.defaults.contextTokens)")
    .option("--out <dir>", "where the context map is written (default: the current folder)")
    .option("--format <format>", "map format: png or svg", "png")
    .action(async (file: string | undefined, options: ReplayOptions) => replay(io, file, options));
}

async function replay(io: CliIo, file: string | undefined, options: ReplayOptions): Promise<void> {
  if ((file === undefined) === (options.demo !== true))
    throw new CliUsageError("give a session file or --demo (not both)");
  if (options.format !== "png" && options.format !== "svg")
    throw new CliUsageError(`--format must be png or svg, got "${options.format}"`);
  const window = positive("--window", options.window) ?? (options.demo ? 64_000 : 200_000);
  const budget = positive("--budget", options.budget);
  const turns = options.demo ? generateDemoSession() : await turnsOf(resolve(io.cwd, file as string));
  const { config: userConfig, home: userHome } = await openCliContext(io);
  const config: ClewConfig = {
    ...userConfig,
    plugins: {
      ...userConfig.plugins,
      slots: { ...userConfig.plugins?.slots, ...(options.engine ? { contextEngine: options.engine } : {}) },
    },
    agents: {
      ...userConfig.agents,
      defaults: {
        ...userConfig.agents?.defaults,
        ...(budget === undefined ? {} : { contextTokens: budget }),
      },
    },
  };
  // Plugin engines come from the user's home; the replayed session lives in a temporary one.
  const engines = await loadEngines(userHome, config, new MemoryLogger());
  const { registry } = engines;
  const asked =
    options.engine === undefined ? undefined : (normalizeContextEngineSlot(options.engine) ?? "legacy");
  // Replaying through another engine than the one asked for would answer a question nobody asked.
  if (asked !== undefined && registry.get(asked) === undefined)
    throw new CliUsageError(`--engine ${asked}: ${whyUnavailable(asked, engines)}`);
  const configured = asked ?? normalizeContextEngineSlot(config.plugins?.slots?.contextEngine) ?? "legacy";
  const home = await mkdtemp(join(tmpdir(), "clew-replay-"));
  try {
    const counter = await createTokenCounter(config);
    const workspaceDir = join(home, "workspace");
    await mkdir(workspaceDir, { recursive: true });
    if (options.demo) await writeDemoWorkspace(workspaceDir);
    const tools = createBuiltinTools({ workspaceDir });
    const prepared = await prepareSystemPrompt({
      workspaceDir,
      firstRun: false,
      home,
      tools,
      settings: resolvePromptSettings(config),
      runtime: { ...describeRuntimeHost(), model: "replay/recorded" },
      now: Date.now(),
    });
    io.stdout(
      `Replaying ${options.demo ? "the demo session" : file} (${turns.length} turns) with a ${window.toLocaleString("en-US")}-token window\n`,
    );
    const result = await replaySession({
      turns,
      home,
      registry,
      config,
      window: budget === undefined ? window : Math.min(window, budget),
      counter,
      logger: new MemoryLogger(),
      systemPrompt: prepared.prompt.text,
      onTurn: (progress, compactions) => {
        for (const compaction of compactions) {
          const sizes =
            compaction.tokensBefore === undefined
              ? ""
              : ` ${formatTokens(compaction.tokensBefore)} → ${formatTokens(compaction.tokensAfter ?? 0)} tokens`;
          const line = `🧹 turn ${compaction.turn}: compacted${sizes} (${compaction.trigger})\n`;
          if (io.stderrIsTTY) io.stderr(`\r\x1b[K${line}`);
          else io.stdout(line);
        }
        if (io.stderrIsTTY) io.stderr(`\r\x1b[K${progressBar(progress)}`);
      },
    });
    if (io.stderrIsTTY) io.stderr("\n");
    const fallback =
      result.engineId === configured
        ? ""
        : ` (in place of "${configured}": ${whyNotRun(configured, engines)})`;
    io.stdout(
      `Engine: ${result.engineId}${fallback} · ${result.compactions.length} compactions by the host\n`,
    );
    io.stdout(`${formatFill(result.fill)}\n\n`);
    if (result.engineStatus !== undefined) {
      const section = formatEngineSection(result.engineStatus);
      if (section.length > 0) io.stdout(`${section}\n\n`);
    }
    const report = buildRunReport({
      source: "run",
      now: Date.now(),
      prompt: prepared.prompt,
      ...(result.lastContext === undefined ? {} : { finalPromptText: result.lastContext.systemPrompt }),
      workspaceFiles: prepared.workspaceFiles,
      skills: prepared.skills.skills,
      tools,
      messages: result.lastRequestMessages,
      counter,
      window,
      contextTokens: null,
      compactions: result.compactions.length,
      sessionKey: result.sessionKey,
      workspaceDir: options.demo ? "(demo workspace)" : io.cwd,
      provider: "replay",
      model: "recorded",
      engine: { configured, effective: result.engineId },
    });
    io.stdout(`${formatContextList(report, { window })}\n`);
    const path = await writeContextMap(report, {
      format: options.format,
      outDir: resolve(io.cwd, options.out ?? "."),
    });
    io.stdout(`\nContext map written to ${path}\n`);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function turnsOf(file: string): Promise<RecordedTurn[]> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new CliUsageError(
      `cannot read ${file}: ${error.code === "ENOENT" ? "no such file" : error.message}`,
    );
  });
  const turns = recordedTurns(importTranscript(text, { sourceName: file }).entries);
  if (turns.length === 0)
    throw new CliUsageError(`${file} holds no user turn with a recorded reply to replay`);
  return turns;
}

function positive(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1_000)
    throw new CliUsageError(`${option} must be a whole number of tokens (at least 1000), got "${value}"`);
  return number;
}

function formatTokens(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
}

type LoadedEngines = Awaited<ReturnType<typeof loadEngines>>;

/** Why no engine `engineId` is registered: its plugin is disabled, failed to load, or missing. */
function whyUnavailable(engineId: string, { registry, report }: LoadedEngines): string {
  const plugin = report.plugins.find((candidate) => candidate.id === engineId);
  if (plugin !== undefined && !plugin.enabled)
    return `plugin ${engineId} is installed but disabled (enable it with "clew plugins enable ${engineId}")`;
  if (plugin?.error !== undefined)
    return `plugin ${engineId} did not load (${plugin.error.stage}): ${plugin.error.message}`;
  const fromCheckout =
    engineId === "lossless"
      ? ' (Clew\'s own, from a checkout: "clew plugins install --link packages/engine-lossless")'
      : "";
  return (
    `no installed or linked plugin registers it (engines here: ${registry.ids().join(", ")}); install one with ` +
    `"clew plugins install <folder | .tgz | npm spec>"${fromCheckout}`
  );
}

/** Why the configured engine is not the one the replay ended on. */
function whyNotRun(engineId: string, engines: LoadedEngines): string {
  if (engines.registry.get(engineId) === undefined) return whyUnavailable(engineId, engines);
  const failure = engines.registry.quarantine.get(engineId);
  return failure === undefined
    ? "it did not run"
    : `it failed (${failure.operation}: ${failure.reason}) and legacy took over`;
}
