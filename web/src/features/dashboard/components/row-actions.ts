import type { RoleName, UserListItem } from '@medshare/contracts';

export type RowAction = 'view' | 'activate' | 'deactivate' | 'delete';

/** Admin rows carry account state; provider rows do not. */
export function isAdminRow(row: UserListItem): row is Extract<UserListItem, { active: boolean }> {
  return 'active' in row;
}

/**
 * `docs/product.md` › Dashboard: everyone who sees the table may View; roles other than patient and
 * healthProvider also Delete and Activate/Deactivate (Activate for a pending provider too: one word for
 * letting a provider in, as on the admin dashboard). An admin's
 * own row offers only View: the server refuses to delete or deactivate oneself.
 */
export function rowActions(
  viewerRole: RoleName | undefined,
  viewerId: string | undefined,
  row: UserListItem,
): RowAction[] {
  const actions: RowAction[] = ['view'];
  if (viewerRole === 'patient' || viewerRole === 'healthProvider' || !viewerRole) return actions;
  if (row.id === viewerId || !isAdminRow(row)) return actions;
  actions.push(row.active ? 'deactivate' : 'activate');
  actions.push('delete');
  return actions;
}

export const actionLabels: Record<RowAction, string> = {
  view: 'View',
  activate: 'Activate',
  deactivate: 'Deactivate',
  delete: 'Delete',
};
