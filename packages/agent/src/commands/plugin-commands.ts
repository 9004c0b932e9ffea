import type { PluginCommand } from "@clew/plugin-sdk";

/**
 * Chat commands plugins register (`api.registerCommand`). A message that is only `/<name> [args]`
 * for a registered name runs the plugin's handler; built-in commands keep their names.
 */
export class PluginCommandRegistry {
  private readonly commands = new Map<string, { command: PluginCommand; owner: string }>();

  register(command: PluginCommand, owner: string): { ok: true } | { ok: false; existingOwner: string } {
    const existing = this.commands.get(command.name);
    if (existing !== undefined && existing.owner !== owner)
      return { ok: false, existingOwner: existing.owner };
    this.commands.set(command.name, { command, owner });
    return { ok: true };
  }

  unregisterOwner(owner: string): void {
    for (const [name, entry] of this.commands) if (entry.owner === owner) this.commands.delete(name);
  }

  /** The command a message invokes, with its arguments, when it is one of these. */
  match(text: string): { command: PluginCommand; args: string } | undefined {
    const match = /^\/([A-Za-z][\w-]*)(?::|\s|$)\s*([\s\S]*)$/.exec(text.trim());
    const entry = match?.[1] === undefined ? undefined : this.commands.get(match[1]);
    return entry === undefined ? undefined : { command: entry.command, args: (match?.[2] ?? "").trim() };
  }

  list(): PluginCommand[] {
    return [...this.commands.values()].map((entry) => entry.command);
  }
}
