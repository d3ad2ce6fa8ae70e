import { useEffect, useState } from 'react';

/** Seconds left before an action may be repeated (the server allows one code per minute). */
export function useCooldown() {
  const [secondsLeft, setSecondsLeft] = useState(0);

  useEffect(() => {
    if (secondsLeft <= 0) return;
    const timer = setTimeout(() => setSecondsLeft((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [secondsLeft]);

  return { secondsLeft, start: (seconds: number) => setSecondsLeft(seconds) };
}
