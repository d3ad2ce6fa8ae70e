/**
 * The wadors loader asks for `multipart/related; type=application/octet-stream; transfer-syntax=*`;
 * a parameter value with a '/' must be quoted (RFC 9110 §5.6.6: '/' is not a token character) and
 * the server answers the unquoted form 406. The same request, quoted.
 */
export function quoteTypeParameter(accept: string): string {
  return accept.replace(/;\s*type=([^";,\s]+)/g, '; type="$1"');
}
