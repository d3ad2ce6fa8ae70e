import type { ToastOptions } from 'react-toastify/unstyled';

/** `docs/product.md` › Messages and errors: toasts of the image area appear bottom-left. */
export const IMAGES_TOAST: ToastOptions = { position: 'bottom-left' };
