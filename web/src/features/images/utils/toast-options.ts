import type { ToastOptions } from 'react-toastify/unstyled';

/** Spec §8: toasts of the image area appear bottom-left. */
export const IMAGES_TOAST: ToastOptions = { position: 'bottom-left' };
