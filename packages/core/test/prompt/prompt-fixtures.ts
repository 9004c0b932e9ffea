import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PromptTool, RuntimeInfo, SkillEntry, SystemPromptInput } from "../../src/index.js";

/** A temp folder removed by `dispose`. */
export async function makeTempDir(prefix: string): Promise<{ path: string; dispose: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

/** Writes `files` (relative path → text) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [relativePath, content] of Object.entries(files)) {
    const path = join(root, relativePath);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

export const runtime: RuntimeInfo = {
  host: "build-box",
  os: "linux 6.8.0",
  arch: "x64",
  node: "v20.11.0",
  model: "anthropic/claude-test",
  thinkingLevel: "low",
};

export const tools: PromptTool[] = [
  {
    name: "read",
    label: "Read",
    description: "Read a file from the workspace.\nLonger explanation the list leaves out.",
    parameters: { type: "object", properties: { path: { type: "string" }, offset: { type: "integer" } } },
  },
  { name: "exec", description: "Run a shell command.", parameters: { type: "object", properties: {} } },
  { name: "noop", label: "No-op" },
];

export const skills: SkillEntry[] = [
  { name: "pdf", description: "Work with <PDF> files & forms.", location: "/skills/pdf/SKILL.md" },
];

/** A prompt input with everything filled in; override what a test varies. */
export function promptInput(overrides: Partial<SystemPromptInput> = {}): SystemPromptInput {
  return {
    tools,
    skills,
    workspaceDir: "/work/space",
    now: NOW,
    runtime,
    files: [
      {
        name: "AGENTS.md",
        path: "/work/space/AGENTS.md",
        status: "OK",
        rawChars: 13,
        injectedChars: 13,
        content: "Be concise.\nX",
        causes: [],
      },
    ],
    ...overrides,
  };
}
