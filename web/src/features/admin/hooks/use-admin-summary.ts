import type { AdminSummary } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { getAdminSummary } from '../api/get-admin-summary';

export type SummaryStatus = 'loading' | 'ready' | 'forbidden' | 'error';

export function useAdminSummary() {
  const [summary, setSummary] = useState<AdminSummary | null>(null);
  const [status, setStatus] = useState<SummaryStatus>('loading');
  const [reloadKey, setReloadKey] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    getAdminSummary(controller.signal)
      .then((result) => {
        setSummary(result.data);
        setStatus('ready');
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setStatus(error instanceof ApiError && error.status === 403 ? 'forbidden' : 'error');
      });
    return () => controller.abort();
  }, [reloadKey]);

  return { summary, status, reload: () => setReloadKey((k) => k + 1) };
}
