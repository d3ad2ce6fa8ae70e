import createCache from '@emotion/cache';

/**
 * The server's CSP allows <style> only with the per-request nonce, which it writes into the
 * <meta property="csp-nonce"> Vite emits. Browsers hide nonce attributes from getAttribute, so
 * it is read through the `nonce` property.
 */
export function createNonceCache() {
  const meta = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]');
  const nonce = meta?.nonce || undefined;
  return createCache({ key: 'mui', nonce, prepend: true });
}
