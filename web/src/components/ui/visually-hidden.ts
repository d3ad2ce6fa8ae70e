/**
 * Styles that hide text from the eye but not from screen readers. Sizes are strings: MUI's `sx`
 * reads a bare 1 as 100%, which turned this into a page-wide box that scrolled sideways.
 */
export const visuallyHidden = {
  border: 0,
  clip: 'rect(0 0 0 0)',
  height: '1px',
  margin: '-1px',
  overflow: 'hidden',
  padding: 0,
  position: 'absolute',
  whiteSpace: 'nowrap',
  width: '1px',
} as const;
