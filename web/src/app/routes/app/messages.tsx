import { MessagesPage } from '../../../features/messages/components/messages-page';

export default function MessagesRoute() {
  return <MessagesPage />;
}
