import { describe, expect, it } from "vitest";
import { formatBytes } from "../src/format-bytes.js";

describe("formatBytes", () => {
  it("shows bytes below a KiB, then binary units with one decimal", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1_023)).toBe("1023 B");
    expect(formatBytes(1_536)).toBe("1.5 KB");
    expect(formatBytes(109_157_581)).toBe("104.1 MB");
    expect(formatBytes(5 * 1024 ** 4)).toBe("5.0 TB");
  });
});
