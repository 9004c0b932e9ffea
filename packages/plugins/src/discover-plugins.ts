import { resolve } from "node:path";
import type { ClewConfig } from "@clew/core";
import { describeError } from "@clew/core";
import {
  type PluginInstallRecord,
  type PluginInstallRecords,
  type PluginSource,
  readInstallRecords,
} from "./install-records.js";

export interface PluginCandidate {
  /** The plugin folder to read a manifest from. */
  dir: string;
  source: PluginSource;
  /** The install record, when Clew installed or linked it (a hand-added load path has none). */
  record?: PluginInstallRecord;
  /** The id the record is filed under. */
  recordId?: string;
}

export interface DiscoveredPlugins {
  candidates: PluginCandidate[];
  records: PluginInstallRecords;
  /** Problems that hide plugins (an unreadable install records file); never thrown. */
  problems: string[];
}

/**
 * Every folder that may hold a plugin: `plugins.load.paths` first (linked folders, which win over
 * an installed copy of the same id, as during development), then the installed plugins of
 * `<home>/plugins/installs.json`. Never throws: a damaged records file becomes a problem and only
 * the load paths are returned.
 */
export async function discoverPlugins(home: string, config: ClewConfig): Promise<DiscoveredPlugins> {
  const problems: string[] = [];
  let records: PluginInstallRecords = {};
  try {
    records = await readInstallRecords(home);
  } catch (error) {
    problems.push(describeError(error));
  }
  const candidates: PluginCandidate[] = [];
  const seen = new Set<string>();
  for (const path of config.plugins?.load?.paths ?? []) {
    const dir = resolve(home, path);
    if (seen.has(dir)) continue;
    seen.add(dir);
    const linked = Object.entries(records).find(
      ([, record]) => record.source === "link" && resolve(record.dir) === dir,
    );
    candidates.push(
      linked === undefined
        ? { dir, source: "link" }
        : { dir, source: "link", record: linked[1], recordId: linked[0] },
    );
  }
  for (const [id, record] of Object.entries(records).sort(([left], [right]) => left.localeCompare(right))) {
    if (record.source === "link") continue;
    const dir = resolve(record.dir);
    if (seen.has(dir)) continue;
    seen.add(dir);
    candidates.push({ dir, source: record.source, record, recordId: id });
  }
  return { candidates, records, problems };
}
