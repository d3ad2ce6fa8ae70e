import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../testing/test-utils';
import { PATIENT, PROVIDER, makeImage, pendingShare } from '../testing-fixtures';
import type { Viewer } from '../utils/card-rules';
import { ImageCard } from './image-card';
import type { Image } from '@medshare/contracts';

function renderCard(image: Image, viewer: Viewer, dicomPath?: string) {
  const handlers = { onShare: vi.fn(), onVerify: vi.fn(), onDelete: vi.fn(), onView: vi.fn(), onDownload: vi.fn() };
  renderWithProviders(
    <ImageCard
      image={image}
      viewer={viewer}
      locale="en-PK"
      timeZone="Asia/Karachi"
      aiPath={`/ai-analysis/${image.id}`}
      dicomPath={dicomPath}
      {...handlers}
    />,
  );
  return handlers;
}

describe('ImageCard', () => {
  it("shows 'Image not Verified' and only Verify to a patient who has not entered the code", () => {
    renderCard(pendingShare(), PATIENT);
    expect(screen.getByText('Image not Verified')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Verify' })).toBeInTheDocument();
    for (const name of ['View', 'Share']) expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Ai' })).not.toBeInTheDocument();
  });

  it('shows a PDF icon for PDFs', () => {
    renderCard(makeImage({ contentType: 'application/pdf' }), PROVIDER);
    expect(screen.getByText('PDF document')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'View' })).toBeInTheDocument();
  });

  it('shows a DICOM icon and offers Download, but no View while no DICOM viewer route exists', () => {
    renderCard(makeImage({ contentType: 'application/dicom' }), PROVIDER);
    expect(screen.getByText('DICOM image')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'View' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download Chest X-ray' })).toBeInTheDocument();
  });

  it('links a DICOM card to the DICOM viewer when that route is given', () => {
    renderCard(makeImage({ contentType: 'application/dicom' }), PROVIDER, '/dicom/abc');
    expect(screen.getByRole('link', { name: 'View' })).toHaveAttribute('href', '/dicom/abc');
  });

  it("shows 'Unsupported file type: {type}' for other types", () => {
    renderCard(makeImage({ contentType: 'image/gif' as Image['contentType'] }), PROVIDER);
    expect(screen.getByText('Unsupported file type: image/gif')).toBeInTheDocument();
  });

  it('gives the uploader View, Share, Ai (to /ai-analysis/:id), Download and Delete, and calls back', async () => {
    const image = makeImage();
    const handlers = renderCard(image, PROVIDER);
    expect(screen.getByRole('link', { name: 'Ai' })).toHaveAttribute('href', `/ai-analysis/${image.id}`);
    screen.getByRole('button', { name: 'Share' }).click();
    screen.getByRole('button', { name: 'Delete Chest X-ray' }).click();
    screen.getByRole('button', { name: 'View' }).click();
    expect(handlers.onShare).toHaveBeenCalledWith(image);
    expect(handlers.onDelete).toHaveBeenCalledWith(image);
    expect(handlers.onView).toHaveBeenCalledWith(image);
  });

  it('shows the date in the configured locale and time zone', () => {
    renderCard(makeImage({ createdAt: '2026-11-22T20:30:00.000Z' }), PROVIDER);
    // 20:30 UTC is already the 23rd in Karachi (UTC+5).
    expect(screen.getByText(/23.Nov.2026/)).toBeInTheDocument();
  });
});
