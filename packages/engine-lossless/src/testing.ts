/**
 * Test helpers for store implementers: the store contract suite. Import from
 * `@clew/engine-lossless/testing` in a Vitest test file.
 */
export {
  type LosslessStoreContractSuiteOptions,
  runLosslessStoreContractSuite,
  type StoreUnderTest,
} from "./testing/store-contract.js";
