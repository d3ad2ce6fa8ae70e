import { useParams } from 'react-router';
import { StudyPage } from '../../../features/images/components/study-page';

export default function StudyRoute() {
  const { studyUid = '' } = useParams();
  return <StudyPage key={studyUid} studyUid={studyUid} />;
}
