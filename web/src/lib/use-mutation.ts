import { useState } from 'react';

/**
 * Tracks one call so a form can disable its button while it runs (no double submit); the caller
 * handles success and failure itself because every screen words them differently.
 */
export function useMutation<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [isPending, setPending] = useState(false);

  async function mutate(...args: A): Promise<R> {
    setPending(true);
    try {
      return await fn(...args);
    } finally {
      setPending(false);
    }
  }

  return { mutate, isPending };
}
