import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes } from '../../../testing/test-utils';
import AiAnalysisRoute from './ai-analysis';

describe('/ai-analysis route', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('explains the page and links to View Images when no image id is given', () => {
    const fetchMock = vi.fn<typeof fetch>();
    vi.stubGlobal('fetch', fetchMock);
    renderRoutes([{ path: '/ai-analysis/:id?', element: <AiAnalysisRoute /> }], '/ai-analysis');
    expect(screen.getByRole('heading', { name: 'AI Medical Analysis', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View Images' })).toHaveAttribute('href', '/view-images');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
