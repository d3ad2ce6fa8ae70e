import type { Pagination } from '@medshare/contracts';

export const ok = <T>(data: T, message?: string) => ({ success: true as const, ...(message ? { message } : {}), data });

export const paged = <T>(data: T[], pagination: Pagination, message?: string) => ({
  success: true as const,
  ...(message ? { message } : {}),
  data,
  pagination,
});

export function paginationOf(page: number, pageSize: number, totalItems: number): Pagination {
  const totalPages = Math.max(1, Math.ceil(totalItems / pageSize));
  return { currentPage: page, pageSize, totalPages, totalItems, hasPrevPage: page > 1, hasNextPage: page < totalPages };
}
