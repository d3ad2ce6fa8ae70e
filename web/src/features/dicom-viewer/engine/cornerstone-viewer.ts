// Everything that touches Cornerstone3D lives here, so the rest of the feature stays plain React
// and this module (with vtk.js and the codecs behind it) loads only with the viewer route.
import { Enums, RenderingEngine, cache, eventTarget, init as coreInit, type Types } from '@cornerstonejs/core';
import { init as loaderInit, wadors, wadouri } from '@cornerstonejs/dicom-image-loader';
import {
  Enums as ToolEnums,
  PanTool,
  StackScrollTool,
  ToolGroupManager,
  WindowLevelTool,
  ZoomTool,
  addTool,
  init as toolsInit,
  utilities as toolUtilities,
} from '@cornerstonejs/tools';
import { currentToken, endSessionIfExpired } from '../../../lib/api-client';
import { quoteTypeParameter } from '../utils/accept';
import { ensurePart10 } from '../utils/part10';
import { fromVoiRange, toVoiRange, type WindowLevel } from '../utils/window-level';

/** The drag tools; 'scroll' pages through a stack with the left button or one finger (a swipe). */
export type ToolMode = 'windowLevel' | 'zoom' | 'pan' | 'scroll';

/**
 * One image of a stack: a frame read over WADO-RS (its URL and its instance's DICOM JSON metadata),
 * or a frame of a whole DICOM file read from `fileUrl` (fetched once for all its frames). A file
 * source with `authenticate: false` goes without the bearer header: the share link page's
 * link-scoped routes take their cookie only (`docs/architecture.md` › Sharing with someone without
 * an account).
 */
export type StackImageSource =
  | { frameUrl: string; metadata: Record<string, unknown> }
  | {
      fileUrl: string;
      frame: number;
      frames: number;
      authenticate: boolean;
      /** Told a refused read's status and message (a link revoked or re-issued while open). */
      onRefused?: (status: number, message: string) => void;
    };

type Refused = (status: number, message: string) => void;

/** Image ids read without the bearer header (with whom to tell a refusal), and the requests made for them. */
const anonymousImageIds = new Map<string, Refused | undefined>();
const anonymousRequests = new WeakMap<XMLHttpRequest, Refused | undefined>();

/** The `message` of a JSON error answer, or ''. */
function messageOf(response: unknown): string {
  try {
    const body: unknown = JSON.parse(new TextDecoder().decode(response as ArrayBuffer));
    if (body && typeof body === 'object' && 'message' in body) return String(body.message);
  } catch {
    // Not JSON: no message.
  }
  return '';
}

export type ViewerState = {
  frame: number;
  frames: number;
  window: WindowLevel | null;
  invert: boolean;
  zoom: number;
};

export type ViewerCallbacks = {
  /** Called after every render with what the toolbar shows. */
  onChange: (state: ViewerState) => void;
};

const TOOL_NAMES: Record<ToolMode, string> = {
  windowLevel: WindowLevelTool.toolName,
  zoom: ZoomTool.toolName,
  pan: PanTool.toolName,
  scroll: StackScrollTool.toolName,
};

/**
 * Decoded images kept in memory for a stack: a 300-slice CT (512 × 512, 16 bit) takes about 150 MB
 * decoded; the default (3 GB) would let a phone's tab be killed before the cache evicts anything.
 */
const CACHE_BYTES = 512 * 1024 * 1024;

/** A 30-frame ultrasound decodes in about a second here; a minute means something is stuck. */
const LOAD_TIMEOUT_MS = 30_000;

let initialised: Promise<void> | null = null;

/** Cornerstone keeps global state: initialise it once per page, on the first viewer. */
function initCornerstone(): Promise<void> {
  initialised ??= (async () => {
    // One viewport at a time: one WebGL context (the default pool of 7 exhausts the browser's
    // limit after a few viewer visits).
    coreInit({ rendering: { webGlContextCount: 1 }, debug: {} });
    cache.setMaxCacheSize(CACHE_BYTES);
    // One decode worker per spare core, at most two: a stack decodes ahead of the slice shown while
    // the UI keeps a core. The dicom-parser metadata path (deprecated in 5.x but maintained) reads
    // deflated, big-endian and header-less files that the newer dcmjs-based path rejects.
    loaderInit({
      maxWebWorkers: Math.max(1, Math.min(2, (navigator.hardwareConcurrency || 2) - 1)),
      useLegacyMetadataProvider: true,
      // WADO-RS frames are read with the session's bearer header, like every other API call: no
      // token in a URL.
      beforeSend: (xhr, imageId, defaultHeaders): Record<string, string> => {
        const anonymous = anonymousImageIds.has(imageId);
        if (anonymous) anonymousRequests.set(xhr, anonymousImageIds.get(imageId));
        const token = anonymous ? null : currentToken();
        return {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(defaultHeaders.Accept ? { Accept: quoteTypeParameter(defaultHeaders.Accept) } : {}),
        };
      },
      errorInterceptor: (error) => {
        // A refused link-scoped read goes to its page; it says nothing about the signed-in session.
        const request = error.request as XMLHttpRequest;
        if (anonymousRequests.has(request)) {
          if (error.status >= 400) anonymousRequests.get(request)?.(error.status, messageOf(error.response));
          return;
        }
        if (error.status !== 401) return;
        // Without the expiry message (or any JSON), a 401 alone does not end the session.
        void endSessionIfExpired(401, messageOf(error.response), Boolean(currentToken()));
      },
    });
    toolsInit();
    for (const tool of [WindowLevelTool, ZoomTool, PanTool, StackScrollTool]) addTool(tool);
  })();
  return initialised;
}

let sequence = 0;

/** A thrown decoder error as one readable sentence. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  // A browser that may not compile WebAssembly (CSP without 'wasm-unsafe-eval') cannot run the
  // JPEG-LS, JPEG 2000 and JPEG baseline codecs.
  if (/WebAssembly|Content Security/i.test(text)) return 'this server does not let the browser run the image codec';
  if (text) return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  if (error && typeof error === 'object' && 'error' in error) return describeError((error as { error: unknown }).error);
  return 'unknown decoder error';
}

export class CornerstoneViewer {
  private readonly id = ++sequence;
  private readonly engineId = `medshare-engine-${this.id}`;
  private readonly viewportId = `medshare-viewport-${this.id}`;
  private readonly toolGroupId = `medshare-tools-${this.id}`;
  private engine: RenderingEngine | null = null;
  private fileIndex: number | null = null;
  private imageIds: string[] = [];
  private defaultWindow: WindowLevel | null = null;
  private mode: ToolMode = 'windowLevel';
  private destroyed = false;
  private resizeObserver: ResizeObserver | null = null;
  private hasImage = false;
  /** A WADO-RS stack (metadata registered with the loader, prefetch on) rather than one file. */
  private stack = false;
  private metadataIds: string[] = [];
  /** Whole files a stack read (their parsed data sets are dropped on destroy) and ids read without the bearer. */
  private fileUrls: string[] = [];
  private anonymousIds: string[] = [];
  private refitFrame = 0;
  private resolveFirstPaint: () => void = () => {};

  private readonly element: HTMLDivElement;
  private readonly callbacks: ViewerCallbacks;

  constructor(element: HTMLDivElement, callbacks: ViewerCallbacks) {
    this.element = element;
    this.callbacks = callbacks;
  }

  /** Decodes the file and shows its first frame; rejects with the decoder's reason. */
  async open(bytes: Uint8Array): Promise<{ frames: number; defaultWindow: WindowLevel | null }> {
    await initCornerstone();
    if (this.destroyed) return { frames: 0, defaultWindow: null };
    const part10 = ensurePart10(bytes);
    const blob = new Blob([part10.buffer as ArrayBuffer], { type: 'application/dicom' });
    const baseId = wadouri.fileManager.add(blob);
    this.fileIndex = Number(baseId.slice('dicomfile:'.length));

    // Parse once to learn the frame count; the loader keeps the parsed data set for the frames.
    const uri = String(this.fileIndex);
    const dataSet = await wadouri.dataSetCacheManager.load(uri, wadouri.loadFileRequest, baseId);
    const pixelData = dataSet.elements.x7fe00010;
    if (!pixelData) throw new Error('the file has no pixel data');
    // dicom-parser accepts a file that ends inside its pixel data; the decoder would then show
    // whatever follows in memory, so a cut-short file is refused here.
    if (!pixelData.encapsulatedPixelData && pixelData.dataOffset + pixelData.length > dataSet.byteArray.length) {
      throw new Error('the file ends before its pixel data does (it is truncated)');
    }
    const frames = Math.max(1, dataSet.intString('x00280008') ?? 1);
    this.imageIds = frames > 1 ? Array.from({ length: frames }, (_, i) => `${baseId}?frame=${i + 1}`) : [baseId];
    const defaultWindow = await this.show(frames > 1);
    return { frames, defaultWindow };
  }

  /**
   * Shows a stack read over WADO-RS (`docs/product.md` › Stack viewer): each image's frame fetched
   * and decoded when shown or prefetched (cornerstone's stackPrefetch, nearest slices first, through
   * the loader's request pool); resolves once the first image is painted.
   */
  async openStack(images: readonly StackImageSource[]): Promise<{ defaultWindow: WindowLevel | null }> {
    await initCornerstone();
    if (this.destroyed) return { defaultWindow: null };
    if (!images.length) throw new Error('the series has no images');
    this.imageIds = images.map((image) =>
      'frameUrl' in image
        ? `wadors:${image.frameUrl}`
        : `wadouri:${image.fileUrl}${image.frames > 1 ? `?frame=${image.frame}` : ''}`,
    );
    images.forEach((image, i) => {
      if (!('frameUrl' in image)) {
        if (!image.authenticate) {
          anonymousImageIds.set(this.imageIds[i]!, image.onRefused);
          this.anonymousIds.push(this.imageIds[i]!);
        }
        const url = image.fileUrl;
        if (!this.fileUrls.includes(url)) this.fileUrls.push(url);
        return;
      }
      // The loader reads a multi-frame instance's metadata from its first frame's URL.
      if (/\/frames\/1$/.test(image.frameUrl)) {
        wadors.metaDataManager.add(
          this.imageIds[i]!,
          image.metadata as Parameters<typeof wadors.metaDataManager.add>[1],
        );
        this.metadataIds.push(this.imageIds[i]!);
      }
    });
    this.stack = true;
    const defaultWindow = await this.show(true);
    toolUtilities.stackPrefetch.enable(this.element);
    return { defaultWindow };
  }

  /** Puts `imageIds` in a stack viewport and waits for the first painted image; the file's (or first slice's) window. */
  private async show(multiFrame: boolean): Promise<WindowLevel | null> {
    const engine = new RenderingEngine(this.engineId);
    this.engine = engine;
    engine.enableElement({
      viewportId: this.viewportId,
      type: Enums.ViewportType.STACK,
      element: this.element,
      defaultOptions: { background: [0, 0, 0] as Types.Point3 },
    });
    // Cornerstone takes the element out of the tab order (tabindex -1); the viewer's keys need it in.
    this.element.tabIndex = 0;
    this.setupTools(multiFrame);
    this.element.addEventListener(Enums.Events.STACK_NEW_IMAGE, this.handleNewImage);
    this.element.addEventListener(Enums.Events.IMAGE_RENDERED, this.handleRendered);

    // The viewport renders (empty) before the decoder has finished; "open" means pixels shown.
    const firstPaint = new Promise<void>((resolve) => {
      this.resolveFirstPaint = resolve;
    });
    await this.untilFirstImage(Promise.all([this.viewport().setStack(this.imageIds, 0), firstPaint]));
    const props = this.viewport().getProperties();
    this.defaultWindow = props.voiRange ? fromVoiRange(props.voiRange) : null;

    this.resizeObserver = new ResizeObserver(() => this.refit());
    this.resizeObserver.observe(this.element);
    return this.defaultWindow;
  }

  /**
   * Refits the image after the element changed size (phone rotation, window resize). Cornerstone
   * skips a resize that arrives while a render is pending (cine), so it is tried again on the next
   * frames until the canvas matches the element.
   */
  private refit(attempt = 0) {
    window.cancelAnimationFrame(this.refitFrame);
    this.refitFrame = window.requestAnimationFrame(() => {
      if (this.destroyed || !this.engine) return;
      // keepCamera=false: refit the image to the new size, as viewers do on rotation.
      this.engine.resize(true, false);
      const canvas = this.element.querySelector('canvas');
      const ratio = window.devicePixelRatio || 1;
      const stale = canvas && Math.abs(canvas.width - Math.round(this.element.clientWidth * ratio)) > 1;
      if (stale && attempt < 10) this.refit(attempt + 1);
    });
  }

  /**
   * A decoder that dies in its worker (a codec the browser refuses to compile, say) may leave
   * setStack pending for ever; the load-error events and a time limit turn that into an error.
   */
  private untilFirstImage(loading: Promise<unknown>): Promise<unknown> {
    let cleanup = () => {};
    const failed = new Promise<never>((_, reject) => {
      const onError = (event: Event) => {
        const detail = (event as CustomEvent<{ imageId?: string; error?: unknown }>).detail;
        if (detail?.imageId && !this.imageIds.includes(detail.imageId)) return;
        reject(new Error(describeError(detail?.error ?? detail)));
      };
      const timer = window.setTimeout(() => reject(new Error('decoding took too long')), LOAD_TIMEOUT_MS);
      eventTarget.addEventListener(Enums.Events.IMAGE_LOAD_ERROR, onError);
      eventTarget.addEventListener(Enums.Events.IMAGE_LOAD_FAILED, onError);
      cleanup = () => {
        window.clearTimeout(timer);
        eventTarget.removeEventListener(Enums.Events.IMAGE_LOAD_ERROR, onError);
        eventTarget.removeEventListener(Enums.Events.IMAGE_LOAD_FAILED, onError);
      };
    });
    return Promise.race([loading, failed]).finally(cleanup);
  }

  private viewport(): Types.IStackViewport {
    const viewport = this.engine?.getViewport(this.viewportId);
    if (!viewport) throw new Error('viewer is not open');
    return viewport as Types.IStackViewport;
  }

  private setupTools(multiFrame: boolean) {
    const group = ToolGroupManager.createToolGroup(this.toolGroupId);
    if (!group) throw new Error('could not create the tool group');
    for (const name of [WindowLevelTool, ZoomTool, PanTool, StackScrollTool].map((t) => t.toolName)) {
      group.addTool(name);
    }
    group.addViewport(this.viewportId, this.engineId);
    this.applyBindings(multiFrame);
  }

  /**
   * The chosen tool answers the left button and one finger; the right button zooms, the middle
   * one pans, two fingers pinch-zoom and pan, and the wheel pages through frames (or zooms a
   * single image) whatever the chosen tool.
   */
  private applyBindings(multiFrame = this.imageIds.length > 1) {
    const group = ToolGroupManager.getToolGroup(this.toolGroupId);
    if (!group) return;
    const { MouseBindings } = ToolEnums;
    const bindings: Record<string, Array<{ mouseButton?: number; numTouchPoints?: number }>> = {
      [WindowLevelTool.toolName]: [],
      [ZoomTool.toolName]: [{ mouseButton: MouseBindings.Secondary }, { numTouchPoints: 2 }],
      [PanTool.toolName]: [{ mouseButton: MouseBindings.Auxiliary }],
      [StackScrollTool.toolName]: [],
    };
    bindings[TOOL_NAMES[this.mode]]!.push({ mouseButton: MouseBindings.Primary });
    bindings[multiFrame ? StackScrollTool.toolName : ZoomTool.toolName]!.push({ mouseButton: MouseBindings.Wheel });
    for (const [name, list] of Object.entries(bindings)) {
      group.setToolPassive(name);
      if (list.length) group.setToolActive(name, { bindings: list });
    }
  }

  setMode(mode: ToolMode) {
    this.mode = mode;
    this.applyBindings();
  }

  setWindow(window: WindowLevel | null) {
    const target = window ?? this.defaultWindow;
    if (!target) return;
    this.viewport().setProperties({ voiRange: toVoiRange(target) });
    this.viewport().render();
  }

  toggleInvert() {
    const viewport = this.viewport();
    viewport.setProperties({ invert: !viewport.getProperties().invert });
    viewport.render();
  }

  zoomBy(factor: number) {
    const viewport = this.viewport();
    viewport.setZoom(viewport.getZoom() * factor);
    viewport.render();
  }

  /** Back to the file's window, no inversion change beyond the file's own, fitted and centred. */
  reset() {
    const viewport = this.viewport();
    viewport.resetProperties();
    viewport.resetCamera();
    if (this.defaultWindow) viewport.setProperties({ voiRange: toVoiRange(this.defaultWindow) });
    viewport.render();
  }

  async goToFrame(index: number) {
    const n = this.imageIds.length;
    if (!n) return;
    await this.viewport().setImageIdIndex(((index % n) + n) % n);
  }

  private readonly handleNewImage = () => {
    this.hasImage = true;
  };

  private readonly handleRendered = () => {
    if (this.destroyed || !this.engine || !this.hasImage) return;
    this.resolveFirstPaint();
    const viewport = this.viewport();
    const props = viewport.getProperties();
    this.callbacks.onChange({
      frame: viewport.getCurrentImageIdIndex(),
      frames: this.imageIds.length,
      window: props.voiRange ? fromVoiRange(props.voiRange) : null,
      invert: Boolean(props.invert),
      zoom: viewport.getZoom(),
    });
  };

  destroy() {
    this.destroyed = true;
    this.resizeObserver?.disconnect();
    window.cancelAnimationFrame(this.refitFrame);
    this.element.removeEventListener(Enums.Events.IMAGE_RENDERED, this.handleRendered);
    this.element.removeEventListener(Enums.Events.STACK_NEW_IMAGE, this.handleNewImage);
    if (this.stack) toolUtilities.stackPrefetch.disable(this.element);
    ToolGroupManager.destroyToolGroup(this.toolGroupId);
    this.engine?.destroy();
    this.engine = null;
    for (const imageId of this.metadataIds) wadors.metaDataManager.remove(imageId);
    for (const url of this.fileUrls) wadouri.dataSetCacheManager.unload(url);
    for (const imageId of this.imageIds) {
      // Frames never shown were never cached; the cache throws for those.
      if (cache.getImageLoadObject(imageId)) cache.removeImageLoadObject(imageId, { force: true });
    }
    for (const imageId of this.anonymousIds) anonymousImageIds.delete(imageId);
    if (this.fileIndex !== null) {
      wadouri.dataSetCacheManager.unload(String(this.fileIndex));
      wadouri.fileManager.remove(this.fileIndex);
    }
  }
}
