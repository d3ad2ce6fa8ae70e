import { ApiError } from '../../../lib/api-client';
import { useGetAdminSummaryQuery } from '../api/get-admin-summary';

export type SummaryStatus = 'loading' | 'ready' | 'forbidden' | 'error';

export function useAdminSummary() {
  // Registrations and uploads arrive from everyone: read again each time the page opens.
  const { data, error, isError, refetch } = useGetAdminSummaryQuery(undefined, { refetchOnMountOrArgChange: true });
  let status: SummaryStatus = 'loading';
  if (isError) status = error instanceof ApiError && error.status === 403 ? 'forbidden' : 'error';
  else if (data) status = 'ready';
  return { summary: data ?? null, status, reload: () => void refetch() };
}
