import { startTransition, useEffect, useState } from 'react';

/** Cards drawn with the page's first answer: a phone's screen holds one, a desktop's first row three. */
export const FIRST_CARDS = 3;
/** Cards added per later step. */
export const CARDS_PER_STEP = 2;

/**
 * How many of a page's `total` cards to draw now (`budget`), and whether what follows them may show: `FIRST_CARDS` at first, then `CARDS_PER_STEP` more
 * per step, each step a transition (React renders it in slices and lets input in between) started
 * after the previous one was painted. Six cards drawn at once were one long task of 370-800 ms on
 * Lighthouse's phone, blocking taps; in steps no task exceeds a few cards' worth. Cards are added in
 * document order and what follows them waits for the last step, so nothing already drawn moves
 * (docs/architecture.md › Frontend, "Start-up"). Once every card of the first answer is drawn, the
 * budget is unlimited: later answers draw at once. Until `ready` (the cards' list has answered, and
 * what comes above them is known) nothing is drawn and no step is taken.
 */
export function useRevealBudget(total: number, ready = true): { budget: number; allDrawn: boolean } {
  const [budget, setBudget] = useState(FIRST_CARDS);
  // What follows the cards stays once drawn, even when cards come later (a list that answers after
  // the page mounted): hiding it again would make it flash.
  const [followersShown, setFollowersShown] = useState(false);
  if (ready && !followersShown && budget >= total) setFollowersShown(true);
  useEffect(() => {
    if (!ready || budget === Infinity) return;
    // Every card is drawn (or an empty answer was): from now on all of them at once.
    if (budget >= total && followersShown) setBudget(Infinity);
    // The next value, not an updater: StrictMode's second effect pass must not add a step twice.
    else if (total > budget) startTransition(() => setBudget(budget + CARDS_PER_STEP));
  }, [ready, budget, total, followersShown]);
  return { budget, allDrawn: ready && (followersShown || budget >= total) };
}
