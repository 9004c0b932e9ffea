/** `write`: create or overwrite a whole file. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Static, Type } from "typebox";
import { fileAccessError, resolveToolPath } from "./paths.js";
import type { AgentTool } from "./tool.js";

const writeParameters = Type.Object({
  path: Type.String({ description: "File path (relative to the workspace, or absolute)" }),
  content: Type.String({ description: "The complete new file content" }),
});

export type WriteToolParameters = Static<typeof writeParameters>;

export interface WriteToolDetails {
  path: string;
  bytes: number;
}

export interface WriteToolOptions {
  workspaceDir: string;
  homeDir?: string;
}

/**
 * Creates the `write` tool: makes missing parent directories, replaces any existing file, and
 * answers "Wrote N bytes to <path>". Throws (as a tool error) when the path is a directory or the
 * file cannot be written.
 */
export function createWriteTool(
  options: WriteToolOptions,
): AgentTool<typeof writeParameters, WriteToolDetails> {
  return {
    name: "write",
    label: "Write",
    description: "Write a file, creating parent directories and replacing any existing content.",
    parameters: writeParameters,
    async execute(_toolCallId, params, signal) {
      const resolvedPath = resolveToolPath(params.path, options);
      try {
        await mkdir(path.dirname(resolvedPath), { recursive: true });
        await writeFile(resolvedPath, params.content, { encoding: "utf8", signal });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw fileAccessError(error, resolvedPath);
      }
      const bytes = Buffer.byteLength(params.content, "utf8");
      return {
        content: [{ type: "text", text: `Wrote ${bytes} bytes to ${resolvedPath}` }],
        details: { path: resolvedPath, bytes },
      };
    },
  };
}
