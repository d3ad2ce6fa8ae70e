import { PageTitle } from '../../../components/ui/page-title';
import { RolesPermissionsPage } from '../../../features/roles/components/roles-permissions-page';

export default function RolesPermissionsRoute() {
  return (
    <>
      <PageTitle title="Roles and Permissions" />
      <RolesPermissionsPage />
    </>
  );
}
