export { type CliIo, CliUsageError, nodeIo } from "./io.js";
export { createProgram, runCli } from "./main.js";
