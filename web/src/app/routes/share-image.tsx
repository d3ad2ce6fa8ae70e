import { ShareDemoPage } from '../../features/share-demo/components/share-demo-page';

export default function ShareImageRoute() {
  return <ShareDemoPage />;
}
