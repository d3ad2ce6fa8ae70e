import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../testing/test-utils';
import { ShareDemoPage } from './share-demo-page';

describe('ShareDemoPage', () => {
  it('shows the four sample illustrations, none of them patient data', () => {
    renderWithProviders(<ShareDemoPage />, '/share-image');
    const images = screen.getAllByRole('img', { name: /drawn sample illustration/ });
    expect(images).toHaveLength(4);
    for (const image of images) expect(image.getAttribute('src')).toMatch(/^\/samples\/.+\.svg$/);
  });

  it('copies the link and says "Link copied to clipboard!"', async () => {
    const user = userEvent.setup();
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();
    renderWithProviders(<ShareDemoPage />, '/share-image');
    await user.click(screen.getByRole('button', { name: 'Copy link to Chest X-ray' }));
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/samples/chest-xray.svg`);
    expect(await screen.findByText('Link copied to clipboard!')).toBeInTheDocument();
  });

  it('shares through Facebook, X and e-mail links that carry the sample URL', () => {
    renderWithProviders(<ShareDemoPage />, '/share-image');
    const url = encodeURIComponent(`${window.location.origin}/samples/brain-mri.svg`);
    expect(screen.getByRole('link', { name: 'Share Brain MRI on Facebook' }).getAttribute('href')).toContain(
      `facebook.com/sharer/sharer.php?u=${url}`,
    );
    expect(screen.getByRole('link', { name: 'Share Brain MRI on X' }).getAttribute('href')).toContain(
      `twitter.com/intent/tweet?url=${url}`,
    );
    expect(screen.getByRole('link', { name: 'Share Brain MRI by e-mail' }).getAttribute('href')).toMatch(/^mailto:/);
  });
});
