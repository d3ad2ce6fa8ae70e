import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import {
  PASSWORD_RULES,
  passwordRuleLabels,
  passwordRuleStates,
  type PasswordIdentity,
  type PasswordRule,
  type PasswordRuleState,
} from '@medshare/contracts/password-policy';
import { useEffect, useMemo, useState } from 'react';
import type { PasswordStrengthEngine } from './password-strength-engine';
import { visuallyHidden } from '../ui/visually-hidden';

let engineLoad: Promise<PasswordStrengthEngine> | null = null;

/** One download per page load, shared by every field; a failed download is tried again next time. */
function loadEngine(): Promise<PasswordStrengthEngine> {
  engineLoad ??= import('./password-strength-engine').then(
    (module) => module.createPasswordStrengthEngine(),
    (error: unknown) => {
      engineLoad = null;
      throw error;
    },
  );
  return engineLoad;
}

/** Shown on the field when a form refuses to send a password that breaks a rule. */
export const PASSWORD_REFUSED = 'Choose a password that meets every rule below.';

export type PasswordStrength = { level: 0 | 1 | 2 | 3 | 4; label: string };

export type PasswordCheck = {
  password: string;
  states: Record<PasswordRule, PasswordRuleState>;
  /** Null while the password is empty. */
  strength: PasswordStrength | null;
  /** A rule is known to be broken: the form does not send it (the server would refuse it anyway). */
  refused: boolean;
  /** A rule only the server can check here, so the meter stops short of "Strong". */
  uncertain: boolean;
};

const strengthLabels = ['Weak', 'Weak', 'Fair', 'Good', 'Strong'] as const;

/**
 * The rules of `docs/product.md` › Validation rules for a password being typed, from the same code the server
 * runs, plus a zxcvbn strength score. The dictionary and estimator load lazily on first use.
 */
export function usePasswordCheck(password: string, identity: PasswordIdentity): PasswordCheck {
  const [engine, setEngine] = useState<PasswordStrengthEngine | null>(null);
  const [unavailable, setUnavailable] = useState(false);
  const { email, username } = identity;

  useEffect(() => {
    let live = true;
    const load = () =>
      loadEngine().then(
        (loaded) => {
          if (live) setEngine(loaded);
        },
        // Without the dictionary the common rule stays "checked when you submit"; the server still decides.
        () => {
          if (live) setUnavailable(true);
        },
      );
    // After the screen has painted, so its own chunks and first render go first.
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(() => void load(), { timeout: 1000 });
      return () => {
        live = false;
        window.cancelIdleCallback(handle);
      };
    }
    const timer = setTimeout(() => void load(), 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);

  return useMemo(() => {
    const states = passwordRuleStates(password, { email, username }, engine?.common ?? null);
    const values = Object.values(states);
    const refused = values.includes('unmet');
    const uncertain = values.includes('unknown');
    let strength: PasswordStrength | null = null;
    if (password && refused) strength = { level: 0, label: 'Too weak' };
    else if (password && !engine) strength = { level: 0, label: unavailable ? 'Not available' : 'Checking…' };
    else if (password && engine) {
      const inputs = [email, email?.split('@')[0], username].filter((s): s is string => Boolean(s));
      const score = Math.max(1, engine.score(password, inputs));
      // Never "Strong" while the server might still refuse it.
      const level = (uncertain ? Math.min(score, 3) : score) as 1 | 2 | 3 | 4;
      strength = { level, label: strengthLabels[level] };
    }
    return { password, states, strength, refused, uncertain };
  }, [password, email, username, engine, unavailable]);
}

const stateText: Record<PasswordRuleState, string> = {
  met: 'met',
  unmet: 'not met',
  unknown: 'checked when you submit',
};

function RuleIcon({ state, typed }: { state: PasswordRuleState; typed: boolean }) {
  const sx = { fontSize: 18, mt: '1px' };
  if (state === 'met') return <CheckCircleIcon aria-hidden color="success" sx={sx} />;
  if (state === 'unknown') return <HelpOutlineIcon aria-hidden sx={{ ...sx, color: 'text.secondary' }} />;
  return typed ? (
    <CancelIcon aria-hidden color="error" sx={sx} />
  ) : (
    <RadioButtonUncheckedIcon aria-hidden sx={{ ...sx, color: 'text.secondary' }} />
  );
}

const meterColours = ['error.main', 'error.main', 'warning.main', 'info.main', 'success.main'] as const;

/** What the live region says: rules met and strength, not every keystroke. */
function summaryOf(check: PasswordCheck): string {
  if (!check.password) return '';
  const values = Object.values(check.states);
  const met = values.filter((s) => s === 'met').length;
  const unknown = values.filter((s) => s === 'unknown').length;
  const rules = `${met} of ${values.length} password rules met${unknown ? `, ${unknown} checked when you submit` : ''}.`;
  return check.strength ? `${rules} Strength: ${check.strength.label}.` : rules;
}

const ANNOUNCE_AFTER_MS = 900;

/** The id of the rules' one-line summary, for the new-password field's `describedBy`. */
export function passwordRulesSummaryId(id: string): string {
  return `${id}-summary`;
}

/**
 * The strength meter and rule checklist shown under a new-password field while the user types. The
 * field names `passwordRulesSummaryId(id)` in its description, so focusing it reads where it stands.
 */
export function PasswordRules({ check, id }: { check: PasswordCheck; id: string }) {
  const typed = check.password.length > 0;
  const summary = summaryOf(check);
  const [announced, setAnnounced] = useState('');

  // Polite and settled: a screen reader hears the state once the user pauses, not after each character.
  useEffect(() => {
    const timer = setTimeout(() => setAnnounced(summary), ANNOUNCE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [summary]);

  const level = check.strength?.level ?? 0;
  return (
    <Box id={id} data-testid="password-rules" sx={{ mt: -1 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mb: 1 }}>
        <Box aria-hidden sx={{ display: 'grid', gridTemplateColumns: 'repeat(4, 1fr)', gap: 0.5, flex: 1 }}>
          {[1, 2, 3, 4].map((segment) => (
            <Box
              key={segment}
              sx={{
                height: 6,
                borderRadius: 3,
                bgcolor: typed && segment <= Math.max(level, 1) ? meterColours[level] : 'action.selected',
                transition: 'background-color 150ms',
              }}
            />
          ))}
        </Box>
        <Typography variant="body2" sx={{ minWidth: '9.5em', fontWeight: 600 }} data-testid="password-strength">
          Strength: {check.strength?.label ?? '—'}
        </Typography>
      </Box>
      <Box
        component="ul"
        aria-label="Rules for your new password"
        sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 0.5 }}
      >
        {PASSWORD_RULES.map((rule) => {
          const state = check.states[rule];
          return (
            <Box
              component="li"
              key={rule}
              data-rule={rule}
              data-state={state}
              sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}
            >
              <RuleIcon state={state} typed={typed} />
              <Typography variant="body2" color={state === 'met' ? 'text.primary' : 'text.secondary'}>
                {passwordRuleLabels[rule]}
                {state === 'unknown' && typed ? ' (checked when you submit)' : null}
                <Box component="span" sx={visuallyHidden}>
                  {state === 'unknown' && typed ? '' : `: ${stateText[state]}`}
                </Box>
              </Typography>
            </Box>
          );
        })}
      </Box>
      <Box id={passwordRulesSummaryId(id)} sx={visuallyHidden}>
        {typed ? summary : `Rules: ${PASSWORD_RULES.map((rule) => passwordRuleLabels[rule]).join('; ')}.`}
      </Box>
      <Box role="status" sx={visuallyHidden}>
        {announced}
      </Box>
    </Box>
  );
}
