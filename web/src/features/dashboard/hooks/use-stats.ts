import type { DashboardStats } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { getStats } from '../api/get-stats';

/** The stat cards' counts; `reload` after a change that moves them. */
export function useStats() {
  const [stats, setStats] = useState<DashboardStats | null>(null);
  const [loading, setLoading] = useState(true);
  const [reloadKey, setReloadKey] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    getStats(controller.signal)
      .then((result) => setStats(result.data))
      .catch(() => {
        // The cards then read '—'; a failed count is not worth a toast on the landing screen.
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
  }, [reloadKey]);

  return { stats, loading, reload: () => setReloadKey((k) => k + 1) };
}
