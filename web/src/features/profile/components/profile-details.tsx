import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { formatCalendarDate } from '../../../lib/calendar-date';
import { usePublicSettings } from '../../../lib/public-settings';
import { roleLabel } from '../../../lib/roles';
import { displayValue, profileSections, visibleFields, type ShownProfile } from './profile-fields';

function initials(profile: ShownProfile): string {
  return `${profile.firstname.charAt(0)}${profile.lastname.charAt(0)}`.toUpperCase() || '?';
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card component="section" aria-labelledby={id} sx={{ p: { xs: 2, sm: 3 } }}>
      <Typography id={id} variant="h6" component="h2" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {children}
    </Card>
  );
}

type Props = {
  profile: ShownProfile;
  /** Buttons beside the name (Edit Profile, delete). */
  actions?: ReactNode;
};

/** Header card and the sections of a profile; shows only what the server returned, 'N/A' when empty. */
export function ProfileDetails({ profile, actions }: Props) {
  const { displayLocale } = usePublicSettings();
  const sections = profileSections(profile)
    .map((section) => ({ ...section, shown: visibleFields(profile, section) }))
    .filter((section) => section.shown.length > 0);
  const hasBio = 'bio' in profile;

  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      <Card
        sx={{ p: { xs: 2, sm: 3 }, display: 'flex', gap: { xs: 2, sm: 3 }, alignItems: 'center', flexWrap: 'wrap' }}
      >
        <Avatar
          sx={{
            width: { xs: 64, sm: 84 },
            height: { xs: 64, sm: 84 },
            fontSize: { xs: 24, sm: 30 },
            fontWeight: 700,
            bgcolor: 'primary.main',
          }}
        >
          {initials(profile)}
        </Avatar>
        <Box sx={{ flex: '1 1 200px', minWidth: 0 }}>
          <Typography variant="h5" component="p" sx={{ overflowWrap: 'anywhere' }}>
            {profile.firstname} {profile.lastname}
          </Typography>
          {'email' in profile && (
            <Typography sx={{ color: 'text.secondary', overflowWrap: 'anywhere' }}>{profile.email || 'N/A'}</Typography>
          )}
          {'username' in profile && (
            <Typography sx={{ color: 'text.secondary', overflowWrap: 'anywhere' }}>
              {profile.username ? `@${profile.username}` : 'N/A'}
            </Typography>
          )}
          <Chip label={roleLabel(profile.role)} color="primary" variant="outlined" size="small" sx={{ mt: 1 }} />
        </Box>
        {actions && <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>{actions}</Box>}
      </Card>

      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
        {sections.map((section) => {
          const id = `section-${section.title.toLowerCase().replace(/\s+/g, '-')}`;
          return (
            <Section key={section.title} id={id} title={section.title}>
              <Box
                component="dl"
                sx={{
                  m: 0,
                  display: 'grid',
                  gridTemplateColumns: 'minmax(110px, 40%) 1fr',
                  columnGap: 2,
                  rowGap: 1.25,
                }}
              >
                {section.shown.map((field) => (
                  <Box key={field.key} sx={{ display: 'contents' }}>
                    <Typography component="dt" sx={{ color: 'text.secondary', fontWeight: 600, fontSize: 14 }}>
                      {field.label}
                    </Typography>
                    <Typography component="dd" sx={{ m: 0, overflowWrap: 'anywhere' }}>
                      {displayValue(profile, field.key, displayLocale, formatCalendarDate)}
                    </Typography>
                  </Box>
                ))}
              </Box>
            </Section>
          );
        })}
        {hasBio && (
          <Section id="section-user-bio" title="User Bio">
            <Typography sx={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>
              {profile.bio?.trim() ? profile.bio : 'N/A'}
            </Typography>
          </Section>
        )}
      </Box>
      {profile.view === 'public' && (
        <Typography sx={{ color: 'text.secondary', fontSize: 14 }}>
          Only the name and role of this user are shared with you.
        </Typography>
      )}
    </Box>
  );
}
