import type { DicomMetadata } from '@medshare/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { ViewerCallbacks } from '../engine/cornerstone-viewer';
import { api, ok } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { DicomViewer } from './dicom-viewer';

const imageId = '3f1c1d0e-4b8a-4d5e-9a43-2b7f0c9e1a22';

/**
 * A stand-in for the Cornerstone engine (WebGL does not run here) that keeps its rule for frames:
 * the last frame asked for is the one a finished load may show; an older load is dropped.
 */
const engine = vi.hoisted(() => ({
  frames: 10,
  target: 0,
  asked: [] as number[],
  onChange: null as
    ((state: { frame: number; frames: number; window: null; invert: boolean; zoom: number }) => void) | null,
  /** The load of the current target finishes: the viewer shows it. */
  show() {
    this.onChange?.({ frame: this.target, frames: this.frames, window: null, invert: false, zoom: 1 });
  },
}));

vi.mock('../engine/cornerstone-viewer', () => ({
  CornerstoneViewer: class {
    constructor(_element: HTMLElement, callbacks: ViewerCallbacks) {
      engine.onChange = callbacks.onChange;
    }
    async open() {
      engine.target = 0;
      engine.show();
      return { frames: engine.frames, defaultWindow: null };
    }
    async goToFrame(index: number) {
      engine.asked.push(index);
      engine.target = ((index % engine.frames) + engine.frames) % engine.frames;
    }
    setMode() {}
    destroy() {}
  },
  describeError: String,
}));

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

  it('stops the cine on the frame shown when End lands on it while the next frame loads', async () => {
    const image = metadata('MR cine');
    image.dicom = { ...image.dicom, kind: 'image', modality: 'MR', frames: engine.frames, rows: 64, columns: 64 };
    serve(image);
    const user = userEvent.setup();
    renderWithProviders(<DicomViewer imageId={imageId} />);
    const slider = await screen.findByRole('slider', { name: 'Frame' });
    await user.click(screen.getByRole('button', { name: 'Play' }));
    // The cine has reached the last frame; its next tick asks for the first, which is still loading.
    act(() => {
      engine.target = engine.frames - 1;
      engine.show();
    });
    engine.asked.length = 0;
    await waitFor(() => expect(engine.asked).toContain(engine.frames));
    expect(engine.target).toBe(0);

    slider.focus();
    await user.keyboard('{End}');
    expect(screen.getByRole('button', { name: 'Play' })).toBeInTheDocument();
    // The frame on screen is asked for again, so the first frame's load is dropped when it ends.
    expect(engine.target).toBe(engine.frames - 1);
    act(() => engine.show());
    expect(screen.getByTestId('dicom-viewport')).toHaveAttribute('data-frame', String(engine.frames - 1));
  });
});
