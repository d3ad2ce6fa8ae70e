import { AdminDashboardPage } from '../../../features/admin/components/admin-dashboard-page';

export default function AdminDashboardRoute() {
  return <AdminDashboardPage />;
}
