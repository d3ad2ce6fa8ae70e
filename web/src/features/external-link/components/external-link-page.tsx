import CloseIcon from '@mui/icons-material/Close';
import EventIcon from '@mui/icons-material/Event';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import type { ExternalLinkStatus, ExternalView } from '@medshare/contracts/external-shares';
import { ExternalShareMessages } from '@medshare/contracts/constants';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { emptyOtp, OtpInput } from '../../../components/form/otp-input';
import { Logo } from '../../../components/ui/logo';
import { site } from '../../../config/site';
import { ApiError } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { useAppDispatch } from '../../../lib/store';
import { formatDateTime } from '../../../lib/display-settings';
import { errorText, fieldErrorInline } from '../../../lib/error-text';
import { usePublicSettings } from '../../../lib/public-settings';
import {
  useCloseLinkMutation,
  useLazyExternalViewQuery,
  useLinkStatusMutation,
  useOpenLinkMutation,
} from '../api/external-link';
import { forgetLink, markLinkOpened, readLinkToken, wasLinkOpened } from '../utils/link-token';
import { ShareViewer, type LinkDicomViewer } from './share-viewer';

const CODE_LENGTH = 6;

type Ended = 'invalid' | 'revoked' | 'expired' | 'locked' | 'unreachable';

/** `docs/product.md` › Share link page: the plain pages of a link that opens nothing. */
const ENDED: Record<Ended, { title: string; text: string }> = {
  invalid: { title: 'This link does not open anything', text: ExternalShareMessages.invalidLink },
  revoked: { title: 'Access has ended', text: ExternalShareMessages.revokedLink },
  expired: { title: 'This link has expired', text: 'Ask the person who shared it for a new link.' },
  locked: { title: 'This link is locked', text: ExternalShareMessages.lockedLink },
  unreachable: {
    title: 'The link could not be checked',
    text: 'MedShare could not be reached. Check your connection, then reload this page.',
  },
};

/** Tells the other tabs of this browser on the same link that it was closed (their cookie is gone too). */
function closedChannel(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('medshare.externalLink');
}

type Phase =
  | { kind: 'checking' }
  | { kind: 'ended'; ended: Ended }
  | { kind: 'closed' }
  | { kind: 'code'; expiresAt: string; note: string }
  | { kind: 'view'; view: ExternalView };

/** 410 says which end; 429 with the lock's words is a locked share; the rest of 4xx an unknown link. */
function endedOf(error: unknown): Ended {
  if (!(error instanceof ApiError) || error.status === 0 || error.status >= 500) return 'unreachable';
  if (error.status === 410)
    return error.code === 'link_expired' || error.message === ExternalShareMessages.expiredLink ? 'expired' : 'revoked';
  if (error.status === 429 && error.message === ExternalShareMessages.lockedLink) return 'locked';
  return 'invalid';
}

function Frame({
  children,
  expiresAt,
  onClose,
  closing,
}: {
  children: React.ReactNode;
  expiresAt?: string;
  /** While the share shows: forget it on this device (`Close`). */
  onClose?: () => void;
  closing?: boolean;
}) {
  const settings = usePublicSettings();
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default' }}>
      <Box
        component="header"
        sx={{
          position: 'sticky',
          top: 0,
          zIndex: 2,
          bgcolor: 'background.paper',
          borderBottom: 1,
          borderColor: 'divider',
          px: { xs: 1.5, sm: 3 },
          py: 1,
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'space-between',
          gap: 1,
          flexWrap: 'wrap',
        }}
      >
        <Logo size={28} />
        {expiresAt && (
          <Typography
            sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, fontWeight: 600 }}
            data-testid="access-ends"
          >
            <EventIcon fontSize="small" color="primary" aria-hidden />
            {`Access ends ${formatDateTime(expiresAt, settings)}`}
          </Typography>
        )}
        {onClose && (
          <Button variant="outlined" size="small" startIcon={<CloseIcon />} onClick={onClose} disabled={closing}>
            Close
          </Button>
        )}
      </Box>
      <Box component="main" sx={{ maxWidth: 1100, mx: 'auto', px: { xs: 1.5, sm: 3 }, py: { xs: 2, sm: 3 } }}>
        {children}
      </Box>
    </Box>
  );
}

function CodeForm({
  token,
  note,
  onOpened,
  onEnded,
}: {
  token: string;
  note: string;
  onOpened: (view: ExternalView) => void;
  onEnded: (ended: Ended) => void;
}) {
  const [digits, setDigits] = useState(() => emptyOtp(CODE_LENGTH));
  const [problem, setProblem] = useState(note);
  const [open, { isLoading }] = useOpenLinkMutation();
  const code = digits.join('');

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (code.length !== CODE_LENGTH) {
      setProblem('Enter the 6-digit code.');
      return;
    }
    try {
      const view = await open({ token, code }).unwrap();
      markLinkOpened();
      onOpened(view);
    } catch (error) {
      const wrong = error instanceof ApiError ? error.errors.find((e) => e.field === 'code') : undefined;
      if (wrong) {
        setProblem(fieldErrorInline(wrong));
        setDigits(emptyOtp(CODE_LENGTH));
        return;
      }
      const ended = endedOf(error);
      if (ended === 'invalid' && error instanceof ApiError && error.status === 429) {
        setProblem(errorText(error, 'Too many attempts. Wait a minute, then try again.'));
        return;
      }
      onEnded(ended);
    }
  }

  return (
    <Box component="form" noValidate onSubmit={onSubmit} sx={{ display: 'grid', gap: 2, maxWidth: 460 }}>
      <Typography>
        The person who shared this with you has a 6-digit code for it; they give it by phone or text message. Enter it
        to open what they shared.
      </Typography>
      <OtpInput label="Code from the sharer" value={digits} onChange={setDigits} autoFocus disabled={isLoading} />
      {problem && (
        <Alert severity="error" role="alert">
          {problem}
        </Alert>
      )}
      <Button type="submit" variant="contained" size="large" disabled={isLoading}>
        {isLoading ? 'Opening…' : 'Open'}
      </Button>
    </Box>
  );
}

/**
 * The share link page `/x#<token>` (`docs/product.md` › Share link page): no account, no app shell; the
 * link's state, then its code, then what it holds, with when access ends always in view.
 */
export function ExternalLinkPage({ dicomViewer }: { dicomViewer?: LinkDicomViewer } = {}) {
  const [token] = useState(readLinkToken);
  const [phase, setPhase] = useState<Phase>(token ? { kind: 'checking' } : { kind: 'ended', ended: 'invalid' });
  const [status, setStatus] = useState<ExternalLinkStatus | null>(null);
  const [checkLink] = useLinkStatusMutation();
  const [readView] = useLazyExternalViewQuery();
  const [closeLink, { isLoading: closing }] = useCloseLinkMutation();
  const [closeFailed, setCloseFailed] = useState(false);
  const dispatch = useAppDispatch();

  // This tab forgets the link and lets the pictures it holds go (here, and when another tab of the
  // same browser closed it: the cookie they share is gone then).
  const forget = useCallback(() => {
    forgetLink();
    setPhase({ kind: 'closed' });
    dispatch(apiSlice.util.resetApiState());
  }, [dispatch]);

  // On a shared computer the next person must not find the images: the server ends the cookie (it is
  // httpOnly), and only then does the page say it is closed.
  const close = useCallback(async () => {
    setCloseFailed(false);
    try {
      await closeLink().unwrap();
    } catch {
      setCloseFailed(true);
      return;
    }
    forget();
    const others = closedChannel();
    others?.postMessage('closed');
    others?.close();
  }, [closeLink, forget]);

  useEffect(() => {
    const channel = closedChannel();
    if (!channel) return;
    channel.onmessage = () => forget();
    return () => channel.close();
  }, [forget]);

  useEffect(() => {
    if (!token) return;
    let live = true;
    void (async () => {
      let found: ExternalLinkStatus;
      try {
        found = await checkLink(token).unwrap();
      } catch (error) {
        if (live) setPhase({ kind: 'ended', ended: endedOf(error) });
        return;
      }
      if (!live) return;
      setStatus(found);
      if (found.state !== 'active') {
        setPhase({ kind: 'ended', ended: found.state });
        return;
      }
      // A reload after a right code: the cookie may still open it. The cookie names no link, so the
      // answer counts only when it is this link's share (same end); otherwise the code is asked again.
      if (wasLinkOpened()) {
        try {
          const view = await readView(undefined, false).unwrap();
          if (!live) return;
          if (view.expiresAt === found.expiresAt) {
            setPhase({ kind: 'view', view });
            return;
          }
        } catch (error) {
          if (!live) return;
          if (error instanceof ApiError && error.status === 410) {
            setPhase({ kind: 'ended', ended: endedOf(error) });
            return;
          }
        }
      }
      setPhase({ kind: 'code', expiresAt: found.expiresAt, note: '' });
    })();
    return () => {
      live = false;
    };
  }, [token, checkLink, readView]);

  // 401: the cookie is gone or the link was re-issued, so the code is asked again; else the link ended.
  const onRefused = useCallback(
    (refusal: ApiError) => {
      if (refusal.status === 401 && status)
        setPhase({ kind: 'code', expiresAt: status.expiresAt, note: refusal.message });
      else setPhase({ kind: 'ended', ended: endedOf(refusal) });
    },
    [status],
  );

  const expiresAt = phase.kind === 'view' ? phase.view.expiresAt : phase.kind === 'code' ? phase.expiresAt : undefined;
  return (
    <Frame expiresAt={expiresAt} onClose={phase.kind === 'view' ? () => void close() : undefined} closing={closing}>
      {phase.kind === 'view' && closeFailed && (
        <Alert severity="error" sx={{ mb: 2 }}>
          This browser could not be cleared: MedShare did not answer. Check the connection and press Close again.
        </Alert>
      )}
      <title>{`Shared with you · ${site.name}`}</title>
      {phase.kind === 'checking' && (
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
          <DelayedCircularProgress aria-label="Checking the link" />
        </Box>
      )}
      {phase.kind === 'ended' && (
        <Box sx={{ display: 'grid', gap: 1.5, maxWidth: 560 }}>
          <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
            {ENDED[phase.ended].title}
          </Typography>
          <Typography>{ENDED[phase.ended].text}</Typography>
        </Box>
      )}
      {phase.kind === 'closed' && (
        <Box sx={{ display: 'grid', gap: 1.5, maxWidth: 560 }}>
          <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
            Closed on this device
          </Typography>
          <Typography>
            This browser no longer holds the shared images or the code's access. To see them again, open the link from
            the mail and enter the code.
          </Typography>
        </Box>
      )}
      {phase.kind === 'code' && token && (
        <Box sx={{ display: 'grid', gap: 2 }}>
          <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
            Enter the code
          </Typography>
          <CodeForm
            token={token}
            note={phase.note}
            onOpened={(view) => setPhase({ kind: 'view', view })}
            onEnded={(ended) => setPhase({ kind: 'ended', ended })}
          />
        </Box>
      )}
      {phase.kind === 'view' && (
        <Box sx={{ display: 'grid', gap: 1.5 }}>
          <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 22, sm: 28 }, overflowWrap: 'anywhere' }}>
            {phase.view.title}
          </Typography>
          <ShareViewer view={phase.view} onRefused={onRefused} dicomViewer={dicomViewer} />
        </Box>
      )}
    </Frame>
  );
}
