import { alpha, createTheme } from '@mui/material/styles';

const brand = {
  blue: '#0b5cad',
  blueDark: '#073f78',
  blueLight: '#e8f1fb',
  teal: '#0a7367',
  ink: '#0f2740',
};

export const theme = createTheme({
  // 'md' is the 1024 px line (`docs/product.md` › Constants and limits) between the drawer and the permanent side menu.
  breakpoints: { values: { xs: 0, sm: 600, md: 1024, lg: 1280, xl: 1536 } },
  palette: {
    mode: 'light',
    primary: { main: brand.blue, dark: brand.blueDark, light: '#3d82c9', contrastText: '#fff' },
    secondary: { main: brand.teal, contrastText: '#fff' },
    success: { main: '#1b7f4b' },
    warning: { main: '#b26a00' },
    error: { main: '#c62828' },
    background: { default: '#f4f7fb', paper: '#ffffff' },
    text: { primary: brand.ink, secondary: '#4a5d72' },
    divider: '#dbe3ec',
  },
  shape: { borderRadius: 10 },
  typography: {
    // The platform's own face (San Francisco, Roboto, Segoe UI …): no font file to download before text
    // can be drawn, and nothing to swap in later (docs/decisions.md › The system font).
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    h1: { fontWeight: 800, letterSpacing: '-0.02em' },
    h2: { fontWeight: 800, letterSpacing: '-0.02em' },
    h3: { fontWeight: 700, letterSpacing: '-0.01em' },
    h4: { fontWeight: 700, letterSpacing: '-0.01em' },
    h5: { fontWeight: 700 },
    h6: { fontWeight: 700 },
    button: { textTransform: 'none', fontWeight: 600 },
    overline: { fontWeight: 700, letterSpacing: '0.12em' },
  },
  components: {
    MuiButton: {
      defaultProps: { disableElevation: true },
      styleOverrides: { root: { borderRadius: 8, paddingInline: 18 }, sizeLarge: { paddingBlock: 11 } },
    },
    MuiTextField: { defaultProps: { fullWidth: true } },
    MuiPaper: { styleOverrides: { rounded: { borderRadius: 14 } } },
    // A card's border and radius are copied in index.css's `.card-outline` (View Images' cards not drawn yet).
    MuiCard: {
      defaultProps: { variant: 'outlined' },
      styleOverrides: { root: { borderRadius: 14, borderColor: '#dde6f0' } },
    },
    MuiAppBar: { defaultProps: { elevation: 0 } },
    MuiListItemButton: {
      styleOverrides: {
        root: ({ theme }) => ({
          borderRadius: 8,
          '&.active': {
            backgroundColor: alpha(theme.palette.primary.main, 0.1),
            color: theme.palette.primary.main,
            '& .MuiListItemIcon-root': { color: theme.palette.primary.main },
          },
        }),
      },
    },
    MuiLink: { defaultProps: { underline: 'hover' } },
    // Dialog buttons line up with the dialog's text (24 px in), not 8 px from its edge.
    MuiDialogActions: { styleOverrides: { root: { padding: '8px 24px 16px' } } },
  },
});
