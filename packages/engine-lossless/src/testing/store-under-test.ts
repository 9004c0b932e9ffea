import type { LosslessStore } from "../store/store.js";

/** A store under test, and how to get rid of it. */
export interface StoreUnderTest {
  store: LosslessStore;
  /** Closes `store` and opens the same data again; omit for stores that do not persist. */
  reopen?: () => Promise<LosslessStore>;
  /** Removes what the store left behind (files, schemas). */
  cleanup: () => Promise<void>;
}

/** A test body run against a fresh store from `createStore`, cleaned up whatever the body does. */
export function withStore(
  createStore: () => Promise<StoreUnderTest>,
  body: (subject: StoreUnderTest) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const subject = await createStore();
    try {
      await body(subject);
    } finally {
      await subject.cleanup();
    }
  };
}
