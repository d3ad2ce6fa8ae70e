import { PageTitle } from '../../../components/ui/page-title';
import { SettingsPage } from '../../../features/settings/components/settings-page';

export default function AppSettingsRoute() {
  return (
    <>
      <PageTitle title="Application Settings">
        Built-in settings drive the application; their values are checked by the server and they cannot be renamed or
        deleted.
      </PageTitle>
      <SettingsPage />
    </>
  );
}
