import { PageTitle } from '../../../components/ui/page-title';
import { AuditLogsPage } from '../../../features/audit/components/audit-logs-page';

export default function AuditLogsRoute() {
  return (
    <>
      <PageTitle title="Audit Logs">
        Every sign-in, change and image access, newest first. Administrators see all entries; providers see their own.
      </PageTitle>
      <AuditLogsPage />
    </>
  );
}
