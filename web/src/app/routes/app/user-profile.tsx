import { UserProfilePage } from '../../../features/profile/components/user-profile-page';

export default function UserProfileRoute() {
  return <UserProfilePage />;
}
