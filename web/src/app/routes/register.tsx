import { RegisterWizard } from '../../features/auth/components/register-wizard';

export default function RegisterRoute() {
  return <RegisterWizard />;
}
