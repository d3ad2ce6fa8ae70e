import { useMemo } from 'react';
import { StackViewer } from '../../features/dicom-viewer/components/stack-viewer';
import { ExternalLinkPage } from '../../features/external-link/components/external-link-page';
import type { LinkDicomViewerProps } from '../../features/external-link/components/share-viewer';

/**
 * The share link's DICOM images in the signed-in app's stack viewer, read-only: the link-scoped
 * content route with its cookie, never the bearer header (`docs/architecture.md` › Sharing with
 * someone without an account).
 */
function LinkStackViewer({ files, modality, onSlice, onRefused }: LinkDicomViewerProps) {
  const source = useMemo(() => ({ files, modality, authenticate: false, onRefused }), [files, modality, onRefused]);
  return <StackViewer files={source} onSlice={onSlice} />;
}

export default function ExternalLinkRoute() {
  return <ExternalLinkPage dicomViewer={LinkStackViewer} />;
}
