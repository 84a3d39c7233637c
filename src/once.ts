/**
 * `load`, run when first asked and its answer kept; a load that fails (a module missing, a
 * provider down) is tried again by the next ask. For what the package loads on first use.
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
