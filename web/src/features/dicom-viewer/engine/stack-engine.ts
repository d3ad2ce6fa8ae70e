// The seam between the stack viewer and Cornerstone3D: the component talks to this interface, the
// page loads the real engine (and with it Cornerstone, vtk.js and the codecs) only when it opens,
// and tests hand the component a fake (jsdom has no WebGL).
import type { WindowLevel } from '../utils/window-level';
import type { StackImageSource, ToolMode, ViewerCallbacks } from './cornerstone-viewer';

export type { StackImageSource, ToolMode, ViewerCallbacks, ViewerState } from './cornerstone-viewer';

export interface StackEngine {
  openStack(images: readonly StackImageSource[]): Promise<{ defaultWindow: WindowLevel | null }>;
  setMode(mode: ToolMode): void;
  setWindow(window: WindowLevel | null): void;
  toggleInvert(): void;
  zoomBy(factor: number): void;
  reset(): void;
  goToFrame(index: number): Promise<void>;
  destroy(): void;
}

export type CreateStackEngine = (element: HTMLDivElement, callbacks: ViewerCallbacks) => Promise<StackEngine>;

/** Cornerstone3D's stack viewport, imported when the first stack opens. */
export const createCornerstoneEngine: CreateStackEngine = async (element, callbacks) => {
  const { CornerstoneViewer } = await import('./cornerstone-viewer');
  return new CornerstoneViewer(element, callbacks);
};
