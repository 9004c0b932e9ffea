export {
  runTranscriptStoreContractSuite,
  type TranscriptStoreContractOptions,
} from "./transcript-store-contract.js";
