/** The three recall tools of one session, in the order the recall policy names them. */
import type { AgentTool } from "@mariozechner/pi-agent-core";
import { createRecallDescribeTool } from "./recall-describe-tool.js";
import { createRecallReadTool } from "./recall-read-tool.js";
import type { RecallScope } from "./recall-scope.js";
import { createRecallSearchTool } from "./recall-search-tool.js";

// biome-ignore lint/suspicious/noExplicitAny: the tools differ in parameter schemas and details.
export type RecallTool = AgentTool<any, any>;

export function createRecallTools(scope: RecallScope): RecallTool[] {
  return [createRecallSearchTool(scope), createRecallReadTool(scope), createRecallDescribeTool(scope)];
}
