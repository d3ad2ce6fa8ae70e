import type { DicomMetadata } from '@medshare/contracts';
import { screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { api, ok } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { DicomViewer } from './dicom-viewer';

const imageId = '3f1c1d0e-4b8a-4d5e-9a43-2b7f0c9e1a22';

function metadata(caption: string): DicomMetadata {
  return {
    imageId,
    caption,
    sopClassUid: '1.2.840.10008.5.1.4.1.1.88.33',
    // A document: the viewer shows its details without loading the rendering engine.
    dicom: {
      kind: 'document',
      modality: 'SR',
      bodyPart: null,
      studyDate: '2024-03-01',
      rows: null,
      columns: null,
      frames: null,
      bitsAllocated: null,
      bitsStored: null,
      photometricInterpretation: null,
      transferSyntaxUid: null,
      deidentified: false,
      studyInstanceUid: null,
      seriesInstanceUid: null,
      sopInstanceUid: null,
    },
    phi: null,
  };
}

/** The metadata, and a one-byte file the viewer cannot decode for the content. */
function serve(meta: DicomMetadata) {
  server.use(
    api.get<DicomMetadata>('/*/dicom/metadata', () => ok(meta)),
    http.get(
      '/api/*',
      () => new HttpResponse(new Uint8Array([0]), { headers: { 'Content-Type': 'application/dicom' } }),
    ),
  );
}

describe('DicomViewer', () => {
  it('shows the caption given at upload above the image', async () => {
    serve(metadata('Chest CT, follow-up after 3 months'));
    renderWithProviders(<DicomViewer imageId={imageId} />);
    expect(await screen.findByTestId('dicom-caption')).toHaveTextContent('Chest CT, follow-up after 3 months');
  });

  it('shows no empty caption line when the caption is empty', async () => {
    serve(metadata(''));
    renderWithProviders(<DicomViewer imageId={imageId} />);
    expect(await screen.findByTestId('dicom-error')).toBeInTheDocument();
    expect(screen.queryByTestId('dicom-caption')).not.toBeInTheDocument();
  });
});
