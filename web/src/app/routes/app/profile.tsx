import { MyProfilePage } from '../../../features/profile/components/my-profile-page';

export default function ProfileRoute() {
  return <MyProfilePage />;
}
