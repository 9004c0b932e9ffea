#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so a fresh clone needs no build step.
import { register } from "tsx/esm/api";

register();
const { runCli, nodeIo } = await import("../src/main.ts");
process.exitCode = await runCli(process.argv.slice(2), nodeIo());
