import type { ParseChatInputOptions, ParsedChatInput } from "./chat-input.js";
import { extractDirectives } from "./extract-directives.js";
import { parseStandaloneCommand } from "./parse-command.js";

/**
 * Reads one chat message (reference §12). Pure and total: never throws, whatever the text.
 *
 * - Authorized senders: a message that is only a known command is a `command`; anything else is
 *   a `message` with directives (`/think`, `/verbose`, `/reasoning`, `/model`) and inline
 *   shortcuts (`/help`, `/commands`, `/status`) taken out. Unknown `/words` stay in the text.
 * - Unauthorized senders: always a `message` whose text is the trimmed input, with no
 *   directives and no shortcuts, so nothing they type can change settings or run a command.
 *
 * `directiveOnly` is true when something was taken out and nothing is left for the model.
 */
export function parseChatInput(text: string, options: ParseChatInputOptions): ParsedChatInput {
  const trimmed = text.trim();
  if (!options.authorized) {
    return { kind: "message", text: trimmed, directives: [], inline: [], directiveOnly: false };
  }
  const command = parseStandaloneCommand(trimmed);
  if (command !== undefined) return command;
  const extraction = extractDirectives(trimmed);
  const extracted = extraction.directives.length + extraction.inline.length > 0;
  return {
    kind: "message",
    text: extraction.text,
    directives: extraction.directives,
    inline: extraction.inline,
    directiveOnly: extracted && extraction.text === "",
  };
}
