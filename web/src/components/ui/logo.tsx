import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { site } from '../../config/site.ts';

type LogoProps = {
  /** 'light' for dark backgrounds. */
  tone?: 'dark' | 'light';
  size?: number;
  showName?: boolean;
};

export function LogoMark({ size = 32, tone = 'dark' }: Omit<LogoProps, 'showName'>) {
  const shield = tone === 'dark' ? '#0b5cad' : '#ffffff';
  const cross = tone === 'dark' ? '#ffffff' : '#0b5cad';
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx="14" fill={shield} />
      <path d="M32 11 50 18v13c0 11.5-7.6 19.4-18 22.8C21.6 50.4 14 42.5 14 31V18z" fill={cross} />
      <path d="M28.5 23h7v7h7v7h-7v7h-7v-7h-7v-7h7z" fill={shield} />
    </svg>
  );
}

export function Logo({ tone = 'dark', size = 32, showName = true }: LogoProps) {
  return (
    <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 1.25 }}>
      <LogoMark size={size} tone={tone} />
      {showName && (
        <Typography
          component="span"
          sx={{
            fontWeight: 800,
            fontSize: size * 0.62,
            letterSpacing: '-0.02em',
            color: tone === 'dark' ? 'text.primary' : 'common.white',
          }}
        >
          {site.name}
        </Typography>
      )}
    </Box>
  );
}
